package archtest

// Module is the import path of the main module.
const Module = "github.com/paimon-flightsql/paimon-flightsql"

// Top-level layers, lowest first. A package may import packages of its own
// layer or of lower layers only.
const (
	layerLeaf      = 0 // standalone leaves: orc and most of internal/
	layerDeletion  = 1
	layerPaimon    = 2
	layerCatalog   = 3
	layerSysviews  = 4
	layerPlanner   = 5
	layerFlightSQL = 6
	layerCmd       = 7
)

// RepoConfig returns the rules of this repository. Edit it (and
// ARCHITECTURE.md's "Import direction") when the architecture changes on
// purpose.
func RepoConfig() Config {
	return Config{
		Module: Module,

		// Directory → layer. A directory inherits the layer of its nearest
		// listed ancestor, except under internal/: there is no "internal"
		// entry, so every internal/ package must be listed itself.
		Layers: map[string]int{
			"orc":                      layerLeaf, // standalone ORC decoder (stdlib, Arrow, compressors)
			"internal/bufpool":         layerLeaf, // pooled Arrow allocator; imports only Arrow memory; used by paimon/scan and flightsql
			"internal/readahead":       layerLeaf, // range-announcement contract between file readers (orc, format) and FileIOs; imports nothing of this module
			"internal/lru":             layerLeaf, // generic byte-bounded LRU cache (manifest, metadata, footer caches); imports only the standard library
			"internal/rowfmt":          layerLeaf, // Arrow rows as JSON/CSV/text; imports only Arrow; used by cmd and tests
			"internal/testutil":        layerLeaf, // test helpers (fixtures, checked allocators); test-only
			"internal/archtest":        layerLeaf, // this lint; imports only the standard library
			"internal/panics":          layerLeaf, // recovered panics as errors; imports only the standard library
			"internal/metrics":         layerLeaf, // process-wide Prometheus metrics (queue, memory, spills); imports only client_golang
			"deletion":                 layerDeletion,
			"paimon":                   layerPaimon,
			"internal/orctest":         layerPaimon, // ORC writer for tests; imports paimon/types; test-only
			"paimon/fileio/fileiotest": layerPaimon, // FileIO conformance suite; imports paimon/fileio; test-only
			"catalog":                  layerCatalog,
			"sysviews":                 layerSysviews,
			"planner":                  layerPlanner,
			"flightsql":                layerFlightSQL,
			"cmd":                      layerCmd,
		},

		// Packages that only _test.go files (and the package itself) may import.
		TestOnly: []string{"internal/testutil", "internal/orctest", "paimon/fileio/fileiotest"},

		// Sub-layers, derived from `go list -f '{{.ImportPath}} {{.Imports}}'`.
		// Inside a tree, non-test code imports only strictly lower ranks;
		// packages of one rank are independent of each other. Test files may
		// also import packages of their own rank (e.g. scan's tests write data
		// with paimon/write, write's tests read it back with paimon/scan).
		SubLayers: map[string]map[string]int{
			"paimon": {
				// 0: no paimon imports
				"paimon/types":  0, // logical types
				"paimon/fileio": 0, // FileIO
				// 1
				"paimon/predicate":         1, // types
				"paimon":                   1, // metadata models; fileio, types (and orc)
				"paimon/fileio/fileiotest": 1, // FileIO conformance suite; fileio; test-only
				"internal/orctest":         1, // types (a member of the tree though it lives in internal/)
				// 2
				"paimon/binrow":    2, // predicate, types
				"paimon/partition": 2, // predicate, types
				"paimon/arrowrow":  2, // predicate
				"paimon/format":    2, // predicate, types (and orc)
				"paimon/fileindex": 2, // predicate, types (file-index decoders; roaring, xxhash)
				// 3
				"paimon/aggfunc": 3, // paimon, arrowrow, predicate (aggregation merge-engine functions)
				// 4
				"paimon/scan":  4, // paimon, arrowrow, binrow, format, partition, predicate, types (and deletion, internal/bufpool)
				"paimon/write": 4, // paimon, arrowrow, binrow, fileio, format, partition, predicate, types (and deletion)
			},
			"planner": {
				"planner/vec":      0, // expressions
				"planner/parse":    0, // SQL front end
				"planner/funcs":    1,
				"planner/exec":     1,
				"planner/logical":  2,
				"planner/physical": 3,
				"planner":          4,
			},
		},

		// Planner-internal imports allowed in non-test code, tighter than the
		// ranks above. A package not listed here is bound by its rank only.
		MayImport: map[string][]string{
			"planner/vec":      {},
			"planner/parse":    {},
			"planner/funcs":    {"planner/vec"},
			"planner/exec":     {"planner/vec"},
			"planner/logical":  {"planner/vec", "planner/exec", "planner/parse"},
			"planner/physical": {"planner/logical", "planner/exec", "planner/vec"},
		},

		// Third-party packages (with their subpackages) forbidden in every
		// layer below a given one, tests included.
		Forbidden: []Forbidden{
			{Rule: "no-grpc-below-flightsql", Path: "google.golang.org/grpc", BelowLayer: layerFlightSQL,
				Why: "the wire protocol belongs to flightsql/; lower layers must not see gRPC"},
			{Rule: "no-flight-below-flightsql", Path: "github.com/apache/arrow-go/v18/arrow/flight", BelowLayer: layerFlightSQL,
				Why: "Arrow Flight belongs to flightsql/; lower layers exchange plain Arrow"},
			{Rule: "no-sqlparser-below-planner", Path: "github.com/xwb1989/sqlparser", BelowLayer: layerPlanner,
				Why: "SQL text and its AST belong to planner/; lower layers take predicates and scan requests"},
		},

		// A missing doc.go is a violation here and only logged elsewhere.
		DocRequired: []string{"planner", "internal"},

		// Known violations in code archtest does not own. Remove an entry
		// when the code is fixed (the repository test logs stale entries).
		Known: []Known{
			{Rule: RuleDocGo, Path: "planner/parse", Why: "known violation: planner/parse has no doc.go (package doc is in another file)"},
			{Rule: RuleDocGo, Path: "internal/bufpool", Why: "known violation: internal/bufpool has no doc.go"},
			{Rule: RuleDocGo, Path: "internal/orctest", Why: "known violation: internal/orctest has no doc.go"},
			{Rule: RuleDocGo, Path: "internal/rowfmt", Why: "known violation: internal/rowfmt has no doc.go"},
			{Rule: RuleDocGo, Path: "internal/testutil", Why: "known violation: internal/testutil has no doc.go (package doc is in testutil.go)"},
		},
	}
}
