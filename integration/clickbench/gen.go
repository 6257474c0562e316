package clickbench

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
)

// Values the queries look for (they filter on them literally).
const (
	// HotCounter is the CounterID of Q37-Q43.
	HotCounter = 62
	// HeavyUserID is the UserID of Q20 (the most frequent user).
	HeavyUserID int64 = 435090932899640449
	// HotRefererHash is the RefererHash of Q41 (one frequent referer).
	HotRefererHash int64 = 3594120000172545465
	// HotURLHash is the URLHash of Q42 (the most frequent URL of CounterID 62).
	HotURLHash int64 = 2868770270353813622
)

// Start is the first EventTime (2013-07-01 00:00:00); rows span the 31
// days of July 2013, EventTime increasing with the row number.
var Start = time.Date(2013, 7, 1, 0, 0, 0, 0, time.UTC)

const span = 31 * 86400 // seconds of July 2013

// Generator produces the rows of a hits table of N rows. Row i is a pure
// function of (N, i): batches can be generated in any order, in parallel,
// and two generators of the same N give the same data.
//
// EventTime is Start + floor(i·31 days / N) seconds: unique for N up to
// 2,678,400 rows (so ORDER BY EventTime has no ties), and EventDate is its
// date. Skew: CounterID 62 has 60% of the rows, the rest log-uniform over a
// few thousand counters; users, URLs, referers and search phrases are
// log-uniform (Zipf-like) over domains that grow with N; 80% of
// SearchPhrase, ~90% of MobilePhoneModel and 10% of Referer are empty.
type Generator struct {
	N      int64
	schema *arrow.Schema
	cols   []colGen
	// domain sizes
	users, urls, referers, phrases int
}

// NewGenerator returns the generator of an n-row table.
func NewGenerator(n int64) *Generator {
	g := &Generator{N: n, schema: format.ArrowSchema(Fields())}
	g.users = int(max(n/10, 100))
	g.urls = int(max(n/4, 1000))
	g.referers = int(max(n/8, 500))
	g.phrases = int(max(n/20, 200))
	g.cols = make([]colGen, g.schema.NumFields())
	for i, f := range g.schema.Fields() {
		g.cols[i] = g.column(i, f)
	}
	return g
}

// Schema is the Arrow schema of the generated batches (the table's).
func (g *Generator) Schema() *arrow.Schema { return g.schema }

// Batch generates rows [start, start+n).
func (g *Generator) Batch(mem memory.Allocator, start, n int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, g.schema)
	defer b.Release()
	for _, f := range b.Fields() {
		f.Reserve(int(n))
	}
	var r row
	var buf []byte
	for i := start; i < start+n; i++ {
		g.fill(&r, i)
		for c, gen := range g.cols {
			buf = gen(&r, b.Field(c), buf[:0])
		}
	}
	return b.NewRecordBatch()
}

// row is the correlated state of one row, computed before its columns.
type row struct {
	i          int64
	t          int64 // EventTime, seconds since the Unix epoch
	counter    int32
	userRank   int
	userID     int64
	url        int // -1 = empty, 0 = the hot URL (HotURLHash)
	referer    int // -1 = empty, 0 = the hot referer (HotRefererHash)
	refDomain  int
	phrase     int // -1 = empty
	engine     int16
	adv        int16
	traffic    int16
	refresh    int16
	dontCount  int16
	link       int16
	download   int16
	watchID    int64
	clientIP   int32
	region     int32
	phone      int // -1 = none
	resW, resH int16
	winW, winH int16
}

// mix is splitmix64.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func (r *row) h(k uint64) uint64 { return mix(uint64(r.i)*0x100000001b3 + k*0x9e3779b97f4a7c15) }

// pct reports whether hash k of the row falls in the first p percent.
func (r *row) pct(k uint64, p uint64) bool { return r.h(k)%1000 < p*10 }

// logUniform maps a hash to a rank in [1, n] with P(rank) ~ 1/rank.
func logUniform(h uint64, n int) int {
	u := float64(h>>11) / (1 << 53)
	r := int(math.Pow(float64(n)+1, u))
	return min(max(r, 1), n)
}

func userID(rank int) int64 {
	if rank == 1 {
		return HeavyUserID
	}
	return int64(mix(uint64(rank)*7919+1) >> 1)
}

func ipOf(k uint64) int32 {
	v := int32(mix(k))
	if v < math.MinInt32+16 { // ClientIP - 3 must not overflow
		v += 16
	}
	return v
}

var commonRes = [][2]int16{{1366, 768}, {1920, 1080}, {1280, 1024}, {1024, 768}, {1440, 900}, {1600, 900}, {1680, 1050}, {1280, 800}, {360, 640}, {320, 568}}

func (g *Generator) fill(r *row, i int64) {
	*r = row{i: i}
	r.t = Start.Unix() + i*span/max(g.N, 1)
	if r.pct(1, 60) {
		r.counter = HotCounter
	} else {
		c := int32(logUniform(r.h(2), 5000))*3 + 1 // 4, 7, 10, ...: never 62
		r.counter = c
	}
	r.userRank = logUniform(r.h(3), g.users)
	r.userID = userID(r.userRank)
	uh := mix(uint64(r.userRank) + 0xabc)
	switch {
	case r.pct(4, 2):
		r.url = -1
	case r.counter == HotCounter && r.pct(5, 30):
		r.url = 0
	default:
		r.url = logUniform(r.h(6), g.urls)
	}
	switch {
	case r.pct(7, 10):
		r.referer = -1
	case r.pct(8, 11):
		r.referer = 0
	default:
		r.referer = logUniform(r.h(9), g.referers)
		if r.h(10)%100 < 78 {
			r.refDomain = 0 // yandex.ru
		} else {
			r.refDomain = 1 + int(r.h(10)/100%uint64(len(refDomains)-1))
		}
	}
	r.phrase = -1
	if r.pct(11, 20) {
		r.phrase = logUniform(r.h(12), g.phrases)
	}
	if r.phrase >= 0 && !r.pct(13, 5) || r.pct(13, 1) {
		r.engine = int16(logUniform(r.h(14), 30))
	}
	if r.pct(15, 4) {
		r.adv = int16(logUniform(r.h(16), 30))
	}
	if r.phrase >= 0 && r.pct(17, 90) {
		r.traffic = 2
	} else {
		p := r.h(18) % 100
		cut := []uint64{35, 60, 68, 80, 85, 90, 94, 97, 99, 100}
		vals := []int16{0, 1, -1, 6, 3, 4, 5, 7, 8, 9}
		for k, c := range cut {
			if p < c {
				r.traffic = vals[k]
				break
			}
		}
	}
	b := func(k, p uint64) int16 {
		if r.pct(k, p) {
			return 1
		}
		return 0
	}
	r.refresh, r.dontCount, r.link, r.download = b(19, 10), b(20, 5), b(21, 10), b(22, 2)
	if r.pct(23, 1) {
		w := logUniform(r.h(24), 1000)
		r.watchID = int64(mix(uint64(w)+0x77) >> 1)
		r.clientIP = ipOf(uint64(w) + 0x5555)
	} else {
		r.watchID = int64(r.h(25) >> 1)
		r.clientIP = ipOf(uint64(r.userRank)*3 + 1)
		if r.pct(26, 5) {
			r.clientIP = ipOf(r.h(27))
		}
	}
	r.region = int32(logUniform(uh, 3000))
	if r.pct(28, 15) {
		r.region = int32(logUniform(r.h(29), 3000))
	}
	r.phone = -1
	if uh>>20%100 < 10 {
		r.phone = int(uh >> 30 % uint64(len(phoneModels)))
	}
	if r.pct(30, 85) {
		res := commonRes[logUniform(r.h(31), len(commonRes))-1]
		r.resW, r.resH = res[0], res[1]
	} else {
		r.resW, r.resH = int16(300+r.h(31)%2300), int16(200+r.h(32)%1400)
	}
	if r.pct(33, 50) {
		r.winW, r.winH = max(r.resW-int16(r.h(34)%40), 0), max(r.resH-int16(100+r.h(35)%120), 0)
	} else {
		r.winW, r.winH = int16(300+r.h(34)%2000), int16(200+r.h(35)%1200)
	}
}

var (
	words = []string{"kino", "film", "online", "smotret", "besplatno", "avto", "prodazha", "kvartira", "pogoda", "moskva",
		"igry", "muzyka", "skachat", "recept", "novosti", "rabota", "serial", "torrent", "karta", "otzyvy",
		"купить", "цена", "фото", "видео", "отзывы", "москва", "бесплатно", "2013"}
	urlDomains  = []string{"kinopoisk.ru", "auto.ru", "avito.ru", "irr.ru", "mail.ru", "livejournal.com", "vk.com", "rambler.ru", "hh.ru", "lenta.ru", "www.google.ru", "googlesyndication.com", "drive2.ru", "rutracker.org"}
	refDomains  = []string{"yandex.ru", "www.google.ru", "go.mail.ru", "vk.com", "away.vk.com", "www.facebook.com", "news.yandex.ru", "market.yandex.ru", "google.com", "rambler.ru"}
	phoneModels = []string{"iPad", "iPhone", "GT-I9100", "GT-I9300", "HTC Desire", "Nokia N9", "GT-N7100", "Lumia 920", "Xperia Z", "MI-ONE"}
	charsets    = []string{"utf-8", "windows-1251", "koi8-r"}
	languages   = []string{"ru", "en", "uk", "de", "tr"}
	countries   = []string{"ru", "ua", "by", "kz", "us", "de"}
)

func appendWords(buf []byte, k uint64, n int, sep byte) []byte {
	for j := 0; j < n; j++ {
		if j > 0 {
			buf = append(buf, sep)
		}
		buf = append(buf, words[k%uint64(len(words))]...)
		k /= uint64(len(words))
	}
	return buf
}

// appendURL renders URL number u (0 = the hot URL).
func appendURL(buf []byte, u int) []byte {
	if u == 0 {
		return append(buf, "http://kinopoisk.ru/film/popular/"...)
	}
	h := mix(uint64(u) + 0x1234)
	d := urlDomains[h%uint64(len(urlDomains))]
	buf = append(buf, "http://"...)
	buf = append(buf, d...)
	if d == "www.google.ru" {
		buf = append(buf, "/search?q="...)
		buf = appendWords(buf, h>>8, 2, '+')
		return strconv.AppendInt(append(buf, "&start="...), int64(u), 10)
	}
	buf = append(buf, '/')
	buf = appendWords(buf, h>>8, 1+int(h>>40%4), '/')
	return strconv.AppendInt(append(buf, "/id"...), int64(u), 10)
}

func urlHash(u int) int64 {
	if u == 0 {
		return HotURLHash
	}
	return int64(mix(uint64(u)+0xdead) >> 1)
}

func appendTitle(buf []byte, u int) []byte {
	if u == 0 {
		return append(buf, "Популярные фильмы — КиноПоиск"...)
	}
	h := mix(uint64(u) + 0x7777)
	buf = appendWords(buf, h, 2+int(h>>50%3), ' ')
	switch h >> 40 % 20 {
	case 0:
		buf = append(buf, " - Google Search"...)
	case 1:
		buf = append(buf, " — Google Карты"...)
	}
	return append(buf, " — "...)
}

func appendReferer(buf []byte, r *row) []byte {
	if r.referer == 0 {
		return append(buf, "https://yandex.ru/yandsearch?text=kinopoisk&lr=213"...)
	}
	d := refDomains[r.refDomain]
	h := mix(uint64(r.referer)*31 + uint64(r.refDomain))
	if h%3 == 0 {
		buf = append(buf, "https://"...)
	} else {
		buf = append(buf, "http://"...)
	}
	buf = append(buf, d...)
	buf = append(buf, "/search?text="...)
	buf = appendWords(buf, h>>4, 1+int(h>>60%3), '+')
	return strconv.AppendInt(append(buf, "&p="...), int64(r.referer), 10)
}

func refererHash(r *row) int64 {
	switch r.referer {
	case -1:
		return int64(mix(0xe) >> 1)
	case 0:
		return HotRefererHash
	}
	return int64(mix(uint64(r.referer)*31+uint64(r.refDomain)+0xbeef) >> 1)
}

func appendPhrase(buf []byte, p int) []byte {
	return appendWords(buf, mix(uint64(p)+0x5151), 1+p%3, ' ')
}

// colGen appends row r's value of one column to b (buf is scratch).
type colGen func(r *row, b array.Builder, buf []byte) []byte

func i16(f func(r *row) int16) colGen {
	return func(r *row, b array.Builder, buf []byte) []byte { b.(*array.Int16Builder).Append(f(r)); return buf }
}

func i32(f func(r *row) int32) colGen {
	return func(r *row, b array.Builder, buf []byte) []byte { b.(*array.Int32Builder).Append(f(r)); return buf }
}

func i64(f func(r *row) int64) colGen {
	return func(r *row, b array.Builder, buf []byte) []byte { b.(*array.Int64Builder).Append(f(r)); return buf }
}

func str(f func(r *row, buf []byte) []byte) colGen {
	return func(r *row, b array.Builder, buf []byte) []byte {
		buf = f(r, buf)
		b.(*array.StringBuilder).BinaryBuilder.Append(buf)
		return buf
	}
}

func ts(f func(r *row) int64) colGen { // seconds → microseconds
	return func(r *row, b array.Builder, buf []byte) []byte {
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(f(r) * 1_000_000))
		return buf
	}
}

// choice picks one of vals for row r with hash k, the first with
// probability p percent, the rest uniformly.
func choice(k uint64, p uint64, vals ...string) func(r *row, buf []byte) []byte {
	return func(r *row, buf []byte) []byte {
		if len(vals) == 1 || r.pct(k, p) {
			return append(buf, vals[0]...)
		}
		return append(buf, vals[1+int(r.h(k)>>20%uint64(len(vals)-1))]...)
	}
}

func (g *Generator) column(idx int, f arrow.Field) colGen {
	k := uint64(1000 + idx) // per-column hash salt
	small := func(n uint64) func(r *row) int16 { return func(r *row) int16 { return int16(r.h(k) % n) } }
	flag := func(p uint64) func(r *row) int16 {
		return func(r *row) int16 {
			if r.pct(k, p) {
				return 1
			}
			return 0
		}
	}
	switch f.Name {
	case "WatchID":
		return i64(func(r *row) int64 { return r.watchID })
	case "JavaEnable":
		return i16(flag(70))
	case "Title":
		return str(func(r *row, buf []byte) []byte {
			if r.url < 0 || r.pct(k, 3) {
				return buf
			}
			return appendTitle(buf, r.url)
		})
	case "GoodEvent":
		return i16(func(r *row) int16 { return 1 })
	case "EventTime":
		return ts(func(r *row) int64 { return r.t })
	case "EventDate":
		return func(r *row, b array.Builder, buf []byte) []byte {
			b.(*array.Date32Builder).Append(arrow.Date32(r.t / 86400))
			return buf
		}
	case "CounterID":
		return i32(func(r *row) int32 { return r.counter })
	case "ClientIP":
		return i32(func(r *row) int32 { return r.clientIP })
	case "RegionID":
		return i32(func(r *row) int32 { return r.region })
	case "UserID":
		return i64(func(r *row) int64 { return r.userID })
	case "OS", "UserAgent":
		return i16(func(r *row) int16 { return int16(logUniform(r.h(k), 100)) })
	case "URL":
		return str(func(r *row, buf []byte) []byte {
			if r.url < 0 {
				return buf
			}
			return appendURL(buf, r.url)
		})
	case "Referer":
		return str(func(r *row, buf []byte) []byte {
			if r.referer < 0 {
				return buf
			}
			return appendReferer(buf, r)
		})
	case "IsRefresh":
		return i16(func(r *row) int16 { return r.refresh })
	case "RefererRegionID", "URLRegionID":
		return i32(func(r *row) int32 { return int32(logUniform(r.h(k), 3000)) })
	case "ResolutionWidth":
		return i16(func(r *row) int16 { return r.resW })
	case "ResolutionHeight":
		return i16(func(r *row) int16 { return r.resH })
	case "ResolutionDepth":
		return i16(func(r *row) int16 { return []int16{24, 32, 16}[r.h(k)%3] })
	case "FlashMinor2":
		return str(choice(k, 70, "", "0", "1", "2"))
	case "UserAgentMinor":
		return str(choice(k, 40, "0", "1", "2", "3", "5", "10", "D", "A"))
	case "IsMobile":
		return i16(func(r *row) int16 {
			if r.phone >= 0 {
				return 1
			}
			return 0
		})
	case "MobilePhone":
		return i16(func(r *row) int16 { return int16(r.phone + 1) })
	case "MobilePhoneModel":
		return str(func(r *row, buf []byte) []byte {
			if r.phone < 0 {
				return buf
			}
			return append(buf, phoneModels[r.phone]...)
		})
	case "Params", "OriginalURL", "SocialSourcePage", "ParamOrderID", "OpenstatServiceName", "OpenstatCampaignID",
		"OpenstatAdID", "OpenstatSourceID", "UTMMedium", "UTMCampaign", "UTMContent", "UTMTerm", "FromTag":
		return str(func(r *row, buf []byte) []byte {
			if !r.pct(k, 3) {
				return buf
			}
			return strconv.AppendUint(append(buf, f.Name[:3]...), r.h(k)>>40%500, 10)
		})
	case "UTMSource":
		return str(choice(k, 95, "", "yandex", "google", "direct", "vk"))
	case "IPNetworkID":
		return i32(func(r *row) int32 { return int32(r.clientIP>>8) & 0xffffff })
	case "TraficSourceID":
		return i16(func(r *row) int16 { return r.traffic })
	case "SearchEngineID":
		return i16(func(r *row) int16 { return r.engine })
	case "SearchPhrase":
		return str(func(r *row, buf []byte) []byte {
			if r.phrase < 0 {
				return buf
			}
			return appendPhrase(buf, r.phrase)
		})
	case "AdvEngineID":
		return i16(func(r *row) int16 { return r.adv })
	case "WindowClientWidth":
		return i16(func(r *row) int16 { return r.winW })
	case "WindowClientHeight":
		return i16(func(r *row) int16 { return r.winH })
	case "ClientTimeZone":
		return i16(func(r *row) int16 { return int16(r.h(k)%25) - 12 })
	case "ClientEventTime":
		return ts(func(r *row) int64 { return r.t + int64(r.h(k)%7200) - 3600 })
	case "LocalEventTime":
		return ts(func(r *row) int64 { return r.t + 4*3600 })
	case "PageCharset":
		return str(choice(k, 80, charsets...))
	case "IsLink":
		return i16(func(r *row) int16 { return r.link })
	case "IsDownload":
		return i16(func(r *row) int16 { return r.download })
	case "IsNotBounce", "IsArtifical", "IsOldCounter", "IsEvent", "IsParameter", "WithHash", "HasGCLID":
		return i16(flag(7))
	case "CookieEnable", "JavascriptEnable":
		return i16(flag(95))
	case "DontCountHits":
		return i16(func(r *row) int16 { return r.dontCount })
	case "HitColor":
		return str(choice(k, 60, "F", "D", "E", "5"))
	case "BrowserLanguage":
		return str(choice(k, 70, languages...))
	case "BrowserCountry":
		return str(choice(k, 70, countries...))
	case "SocialNetwork", "SocialAction", "ParamCurrency":
		return str(choice(k, 97, "", "vk", "fb", "ok", "RUB"))
	case "Age":
		return i16(func(r *row) int16 { return int16(mix(uint64(r.userRank)+k) % 80) })
	case "Sex":
		return i16(func(r *row) int16 { return int16(mix(uint64(r.userRank)+k) % 3) })
	case "HTTPError":
		return i16(func(r *row) int16 {
			if r.pct(k, 1) {
				return 404
			}
			return 0
		})
	case "FUniqID":
		return i64(func(r *row) int64 { return int64(mix(uint64(r.userRank)+k) >> 1) })
	case "ParamPrice":
		return i64(func(r *row) int64 {
			if r.pct(k, 2) {
				return int64(r.h(k) >> 40 % 100000)
			}
			return 0
		})
	case "RefererHash":
		return i64(refererHash)
	case "URLHash":
		return i64(func(r *row) int64 {
			if r.url < 0 {
				return int64(mix(0xf) >> 1)
			}
			return urlHash(r.url)
		})
	}
	// The remaining columns: small non-negative values.
	switch f.Type.ID() {
	case arrow.INT16:
		return i16(small(10))
	case arrow.INT32:
		return i32(func(r *row) int32 { return int32(r.h(k) % 100000) })
	case arrow.INT64:
		return i64(func(r *row) int64 { return int64(r.h(k) >> 1) })
	}
	panic(fmt.Sprintf("clickbench: no generator for column %s (%s)", f.Name, f.Type))
}
