package tpch

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Database is the warehouse database that holds the eight tables.
const Database = "tpch"

// DefaultSeed is the seed Build uses.
const DefaultSeed uint64 = 19920101

// Tables are the TPC-H tables in dependency order.
var Tables = []string{"region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"}

// Sizes are the row counts of the tables whose size depends on the scale
// factor (lineitem has 1–7 lines per order, about 4 × Orders).
type Sizes struct {
	Suppliers, Parts, Customers, Orders int64
}

// SizesFor returns the specification's cardinalities at scale factor sf:
// SF×10,000 suppliers, SF×200,000 parts (4 partsupp rows each),
// SF×150,000 customers and SF×1,500,000 orders.
func SizesFor(sf float64) Sizes {
	n := func(base float64, min int64) int64 { return max(int64(math.Round(base*sf)), min) }
	// The supplier formula needs at least 4 suppliers; the customer rule
	// (keys divisible by 3 have no orders) needs at least 2 customers.
	return Sizes{Suppliers: n(10_000, 4), Parts: n(200_000, 1), Customers: n(150_000, 2), Orders: n(1_500_000, 1)}
}

// ---- schemas ---------------------------------------------------------------

func nn(name string, t types.DataType) types.DataField {
	return types.DataField{Name: name, Type: t.NotNull()}
}

func money() types.DataType { return types.NewDecimal(15, 2) }

// Fields returns the Paimon schema of a table: keys BIGINT (INT for nation
// and region keys), money DECIMAL(15,2), dates DATE, text STRING; every
// column NOT NULL.
func Fields(table string) []types.DataField {
	str, i32, i64, date := types.NewString(), types.NewInt(), types.NewBigInt(), types.NewDate()
	switch table {
	case "region":
		return []types.DataField{nn("r_regionkey", i32), nn("r_name", str), nn("r_comment", str)}
	case "nation":
		return []types.DataField{nn("n_nationkey", i32), nn("n_name", str), nn("n_regionkey", i32), nn("n_comment", str)}
	case "supplier":
		return []types.DataField{nn("s_suppkey", i64), nn("s_name", str), nn("s_address", str), nn("s_nationkey", i32),
			nn("s_phone", str), nn("s_acctbal", money()), nn("s_comment", str)}
	case "part":
		return []types.DataField{nn("p_partkey", i64), nn("p_name", str), nn("p_mfgr", str), nn("p_brand", str), nn("p_type", str),
			nn("p_size", i32), nn("p_container", str), nn("p_retailprice", money()), nn("p_comment", str)}
	case "partsupp":
		return []types.DataField{nn("ps_partkey", i64), nn("ps_suppkey", i64), nn("ps_availqty", i32), nn("ps_supplycost", money()),
			nn("ps_comment", str)}
	case "customer":
		return []types.DataField{nn("c_custkey", i64), nn("c_name", str), nn("c_address", str), nn("c_nationkey", i32),
			nn("c_phone", str), nn("c_acctbal", money()), nn("c_mktsegment", str), nn("c_comment", str)}
	case "orders":
		return []types.DataField{nn("o_orderkey", i64), nn("o_custkey", i64), nn("o_orderstatus", str), nn("o_totalprice", money()),
			nn("o_orderdate", date), nn("o_orderpriority", str), nn("o_clerk", str), nn("o_shippriority", i32), nn("o_comment", str)}
	case "lineitem":
		return []types.DataField{nn("l_orderkey", i64), nn("l_partkey", i64), nn("l_suppkey", i64), nn("l_linenumber", i32),
			nn("l_quantity", money()), nn("l_extendedprice", money()), nn("l_discount", money()), nn("l_tax", money()),
			nn("l_returnflag", str), nn("l_linestatus", str), nn("l_shipdate", date), nn("l_commitdate", date),
			nn("l_receiptdate", date), nn("l_shipinstruct", str), nn("l_shipmode", str), nn("l_comment", str)}
	}
	return nil
}

// ---- value domains (TPC-H 4.2.2.13, 4.2.3) --------------------------------

var (
	regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	nations = []struct {
		name   string
		region int32
	}{
		{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4}, {"ETHIOPIA", 0}, {"FRANCE", 3},
		{"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4},
		{"KENYA", 0}, {"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
		{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
	}
	typeS1      = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeS2      = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeS3      = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	containerS1 = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	containerS2 = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	segments    = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	priorities  = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	instructs   = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes   = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	// colours are the 92 words of P_NAME.
	colours = []string{
		"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue", "blush",
		"brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral", "cornflower", "cornsilk", "cream",
		"cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick", "floral", "forest", "frosted",
		"gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory", "khaki",
		"lace", "lavender", "lawn", "lemon", "light", "lime", "linen", "magenta", "maroon", "medium",
		"metallic", "midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive", "orange", "orchid",
		"pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff", "purple", "red",
		"rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate",
		"smoke", "snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise", "violet", "wheat",
		"white", "yellow",
	}
	// words feed every comment: the nouns, verbs, adjectives, adverbs and
	// prepositions of the specification's text grammar (4.2.2.10), which
	// include "special" and "requests" (Q13).
	words = []string{
		"foxes", "ideas", "theodolites", "pinto", "beans", "instructions", "dependencies", "excuses", "platelets",
		"asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs", "frets", "dinos", "attainments",
		"somas", "Tiresias", "patterns", "forges", "braids", "hockey", "players", "frays", "warhorses", "dugouts",
		"notornis", "epitaphs", "pearls", "tithes", "waters", "orbits", "gifts", "sheaves", "depths", "sentiments",
		"decoys", "realms", "pains", "grouches", "escapades", "packages", "requests", "accounts", "deposits",
		"sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect", "integrate",
		"maintain", "nod", "was", "lose", "sublate", "solve", "thrash", "promise", "engage", "hinder", "print",
		"x-ray", "breach", "eat", "grow", "impress", "mold", "poach", "serve", "run", "dazzle", "snooze", "doze",
		"unwind", "kindle", "play", "hang", "believe", "doubt",
		"furious", "sly", "careful", "blithe", "quick", "fluffy", "slow", "quiet", "ruthless", "thin", "close",
		"dogged", "daring", "brave", "stealthy", "permanent", "enticing", "idle", "busy", "regular", "final",
		"ironic", "even", "bold", "silent", "pending", "special", "express", "unusual",
		"sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly", "fluffily",
		"slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly", "bravely", "stealthily",
		"permanently", "enticingly", "idly", "busily", "regularly", "finally", "ironically", "evenly", "boldly",
		"silently",
		"about", "above", "according to", "across", "after", "against", "along", "alongside of", "among",
		"around", "at", "atop", "before", "behind", "beneath", "beside", "besides", "between", "beyond", "by",
		"despite", "during", "except", "for", "from", "in place of", "inside", "instead of", "into", "near",
		"of", "on", "outside", "over", "past", "since", "through", "throughout", "to", "toward", "under",
		"until", "up", "upon", "without", "with", "within",
	}
)

const addressChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// Dates as days since 1970-01-01: STARTDATE, CURRENTDATE and ENDDATE of the
// specification.
var (
	startDate   = epochDay(1992, 1, 1)
	currentDate = epochDay(1995, 6, 17)
	endDate     = epochDay(1998, 12, 31)
)

func epochDay(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// gen wraps a deterministic random stream with the specification's value
// generators. buf is reused by the string generators: callers copy it
// (the Arrow builders do).
type gen struct {
	r   *rand.Rand
	buf []byte
}

func newGen(seed uint64, stream uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, stream))}
}

// uniform returns an integer uniformly in [lo, hi].
func (g *gen) uniform(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

// text appends to g.buf words separated by spaces, up to a length drawn
// uniformly in [lo, hi] (at least one word, cut to hi).
func (g *gen) text(lo, hi int) []byte {
	g.buf = g.appendText(g.buf[:0], lo, hi)
	return g.buf
}

func (g *gen) appendText(b []byte, lo, hi int) []byte {
	start := len(b)
	limit := lo + g.r.IntN(hi-lo+1)
	for {
		w := words[g.r.IntN(len(words))]
		n := len(b) - start
		if n == 0 {
			if len(w) > limit {
				w = w[:limit]
			}
			b = append(b, w...)
			continue
		}
		if n+1+len(w) > limit {
			return b
		}
		b = append(b, ' ')
		b = append(b, w...)
	}
}

// vstring is a random string of address characters, length in [lo, hi].
func (g *gen) vstring(lo, hi int) []byte {
	n := lo + g.r.IntN(hi-lo+1)
	g.buf = g.buf[:0]
	for range n {
		g.buf = append(g.buf, addressChars[g.r.IntN(len(addressChars))])
	}
	return g.buf
}

// phone is "CC-LLL-LLL-LLLL" with country code nation+10.
func (g *gen) phone(nation int32) []byte {
	b := strconv.AppendInt(g.buf[:0], int64(nation)+10, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, g.uniform(100, 999), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, g.uniform(100, 999), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, g.uniform(1000, 9999), 10)
	g.buf = b
	return b
}

// keyName is prefix followed by n zero-padded to 9 digits ("Supplier#000000001").
func keyName(b []byte, prefix string, n int64) []byte {
	b = append(b[:0], prefix...)
	s := strconv.FormatInt(n, 10)
	for i := len(s); i < 9; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// retailPrice is P_RETAILPRICE in cents (4.2.3).
func retailPrice(p int64) int64 { return 90000 + (p/10)%20001 + 100*(p%1000) }

// suppliersOf returns the four suppliers of part p out of s suppliers: the
// specification's PS_SUPPKEY formula, with a collision (possible at small
// supplier counts) moved to the next free supplier so that the four are
// distinct.
func suppliersOf(p, s int64) [4]int64 {
	var out [4]int64
	for i := range int64(4) {
		k := (p+i*(s/4+(p-1)/s))%s + 1
		for taken(out[:i], k) {
			k = k%s + 1
		}
		out[i] = k
	}
	return out
}

func taken(ks []int64, k int64) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// orderKey is the sparse order key of the i-th order (1-based): the first
// 8 of every 32 keys are used, as dbgen does.
func orderKey(i int64) int64 { return (i-1)/8*32 + (i-1)%8 + 1 }
