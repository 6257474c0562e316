#!/usr/bin/env bash
# Runs every Go fuzz target of the main module for a few seconds on its
# committed corpus (testdata/fuzz/<Target>) plus what the fuzzer finds in
# that time. A finding fails the run and leaves the crasher under
# testdata/fuzz/<Target>/ to commit with the fix. The total is bounded by
# FUZZ_BUDGET seconds (instrumented builds included): a target still
# running at the budget is stopped, and targets that would start after it
# are skipped; both are listed. Plain `go test` already replays
# the committed corpus of every target.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_TIME="${FUZZ_TIME:-5s}"
FUZZ_BUDGET="${FUZZ_BUDGET:-360}"
start=$(date +%s)
ran=0
skipped=()
flaked=()
# "package Target" pairs, found by the declarations themselves.
mapfile -t targets < <(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^./integration/' | sort | while read -r f; do
  pkg="./$(dirname "${f#./}")"
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r t; do echo "$pkg $t"; done
done)
for entry in "${targets[@]}"; do
  read -r pkg target <<<"$entry"
  if (( $(date +%s) - start >= FUZZ_BUDGET )); then
    skipped+=("$pkg $target")
    continue
  fi
  echo "== fuzz $pkg $target ($FUZZ_TIME, at most $(( FUZZ_BUDGET - ($(date +%s) - start) ))s left)"
  # The instrumented build counts against the budget: a run cut off by it
  # is reported as skipped, a finding fails CI. Go's coordinator can fail a
  # run at the -fuzztime boundary with a bare "context deadline exceeded"
  # and no failing input (golang/go#75804, fixed in Go 1.27): such a run is
  # retried once and then reported as a flake. A finding always writes its
  # input ("Failing input written to testdata/fuzz/..."), so that, or any
  # other failure text, still fails CI.
  attempt=0
  while :; do
    attempt=$((attempt + 1))
    left=$(( FUZZ_BUDGET - ($(date +%s) - start) ))
    (( left > 0 )) || { skipped+=("$pkg $target (cut off)"); break; }
    rc=0
    log=$(mktemp)
    timeout --signal=INT --kill-after=10 "$left" go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZ_TIME" -parallel 2 >"$log" 2>&1 || rc=$?
    cat "$log"
    if (( rc == 0 )); then
      ran=$((ran + 1))
    elif (( rc == 124 || rc == 130 || rc == 137 )); then
      skipped+=("$pkg $target (cut off)")
    elif ! grep -q 'Failing input written' "$log" &&
         grep -q '^    context deadline exceeded$' "$log" &&
         ! grep -Eq '^panic:|_test\.go:[0-9]+:' "$log"; then
      if (( attempt < 2 )); then
        echo "== fuzz $pkg $target: coordinator deadline race (no failing input), retrying once"
        rm -f "$log"; continue
      fi
      flaked+=("$pkg $target")
    else
      rm -f "$log"; exit "$rc"
    fi
    rm -f "$log"
    break
  done
done
echo "== fuzz: $ran of ${#targets[@]} targets ran in $(( $(date +%s) - start ))s"
if (( ${#skipped[@]} > 0 )); then
  echo "== fuzz: skipped after the ${FUZZ_BUDGET}s budget: ${skipped[*]}"
fi
if (( ${#flaked[@]} > 0 )); then
  echo "== fuzz: hit Go's -fuzztime deadline race twice, no failing input: ${flaked[*]}"
fi
