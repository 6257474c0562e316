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
  left=$(( FUZZ_BUDGET - ($(date +%s) - start) ))
  echo "== fuzz $pkg $target ($FUZZ_TIME, at most ${left}s left)"
  rc=0
  # The instrumented build counts against the budget: a run cut off by it
  # is reported as skipped, a finding (exit 1) fails CI.
  timeout --signal=INT --kill-after=10 "$left" go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZ_TIME" -parallel 2 || rc=$?
  if (( rc == 124 || rc == 130 || rc == 137 )); then
    skipped+=("$pkg $target (cut off)")
    continue
  elif (( rc != 0 )); then
    exit "$rc"
  fi
  ran=$((ran + 1))
done
echo "== fuzz: $ran of ${#targets[@]} targets ran in $(( $(date +%s) - start ))s"
if (( ${#skipped[@]} > 0 )); then
  echo "== fuzz: skipped after the ${FUZZ_BUDGET}s budget: ${skipped[*]}"
fi
