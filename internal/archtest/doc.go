// Package archtest is the repository's architecture lint, run as a test. It
// parses the imports of every Go file of the main module and enforces the
// rules written down in rules.go and in ARCHITECTURE.md ("Import direction"):
//
//   - the layer order between top-level directories,
//     orc, internal/{bufpool,rowfmt,testutil,archtest} < deletion <
//     paimon (with internal/orctest) < catalog < sysviews < planner <
//     flightsql < cmd, where a package imports its own layer or lower ones;
//   - an explicit sub-layer order inside paimon/ and inside planner/, where a
//     package's non-test code imports only strictly lower sub-layers, plus an
//     allow-list of planner-internal imports per planner package;
//   - test-only packages (internal/testutil, internal/orctest) imported only
//     from _test.go files;
//   - forbidden third-party imports: gRPC and Arrow Flight below flightsql/,
//     xwb1989/sqlparser below planner/;
//   - every directory holding Go code has a layer (and a sub-layer inside
//     paimon/ and planner/), and every package directory has a doc.go.
//
// The checker (Check) is ordinary code so that it can be tested over
// synthetic trees; TestRepository runs it over the repository.
package archtest
