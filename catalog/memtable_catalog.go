package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// MemCatalog is an in-memory Catalog of databases holding tables (usually
// MemTables). It is safe for concurrent use.
type MemCatalog struct {
	mu  sync.RWMutex
	def string
	dbs map[string]map[string]Table // db → SQL name → table
}

var _ Catalog = (*MemCatalog)(nil)

// NewMemCatalog returns an empty catalog whose default database is def
// ("default" when empty); the default database exists from the start.
func NewMemCatalog(def string) *MemCatalog {
	if def == "" {
		def = "default"
	}
	return &MemCatalog{def: def, dbs: map[string]map[string]Table{def: {}}}
}

// CreateDatabase adds an empty database (no-op when it exists).
func (c *MemCatalog) CreateDatabase(db string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dbs[db] == nil {
		c.dbs[db] = map[string]Table{}
	}
}

// AddTable registers t in db under its SQL name (SQLName of its
// Identifier), creating the database when needed and replacing any table
// of the same name.
func (c *MemCatalog) AddTable(db string, t Table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dbs[db] == nil {
		c.dbs[db] = map[string]Table{}
	}
	c.dbs[db][SQLName(t.Identifier())] = t
}

// DefaultDatabase implements Catalog.
func (c *MemCatalog) DefaultDatabase() string { return c.def }

// ListDatabases implements Catalog (sorted).
func (c *MemCatalog) ListDatabases(context.Context) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.dbs))
	for db := range c.dbs {
		out = append(out, db)
	}
	sort.Strings(out)
	return out, nil
}

// ListTables implements Catalog (sorted by name).
func (c *MemCatalog) ListTables(_ context.Context, db string) ([]TableInfo, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	tabs, ok := c.dbs[db]
	if !ok {
		return nil, c.unknownDB(db)
	}
	out := make([]TableInfo, 0, len(tabs))
	for name, t := range tabs {
		out = append(out, TableInfo{Name: name, Kind: t.Kind()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// GetTable implements Catalog.
func (c *MemCatalog) GetTable(_ context.Context, db, name string) (Table, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	tabs, ok := c.dbs[db]
	if !ok {
		return nil, c.unknownDB(db)
	}
	if t, ok := tabs[name]; ok {
		return t, nil
	}
	names := make([]string, 0, len(tabs))
	for n := range tabs {
		names = append(names, n)
	}
	return nil, fmt.Errorf("table %s.%s does not exist%s: %w", db, name, DidYouMean(name, names), ErrNotFound)
}

func (c *MemCatalog) unknownDB(db string) error {
	names := make([]string, 0, len(c.dbs))
	for n := range c.dbs {
		names = append(names, n)
	}
	return paimon.Errorf(ErrNotFound, "database %s does not exist%s", db, DidYouMean(db, names))
}

// DidYouMean returns a suffix for a "not found" message suggesting the
// candidates nearest to name (case-insensitive edit distance at most
// max(2, len(name)/3)), e.g. ` (did you mean "orders"?)`, or "" when
// none is near. At most three suggestions are made, nearest first.
func DidYouMean(name string, candidates []string) string {
	type cand struct {
		s string
		d int
	}
	limit := max(2, len(name)/3)
	var near []cand
	ln := strings.ToLower(name)
	for _, c := range candidates {
		d := editDistance(ln, strings.ToLower(c))
		if d <= limit {
			near = append(near, cand{c, d})
		}
	}
	if len(near) == 0 {
		return ""
	}
	sort.Slice(near, func(i, j int) bool {
		if near[i].d != near[j].d {
			return near[i].d < near[j].d
		}
		return near[i].s < near[j].s
	})
	if len(near) > 3 {
		near = near[:3]
	}
	qs := make([]string, len(near))
	for i, n := range near {
		qs[i] = fmt.Sprintf("%q", n.s)
	}
	return " (did you mean " + strings.Join(qs, " or ") + "?)"
}

// editDistance is the Levenshtein distance between a and b (in runes).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
