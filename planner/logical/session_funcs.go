package logical

import (
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// sessionKeywords are the session functions SQL allows without
// parentheses (current_user, not user).
var sessionKeywords = map[string]bool{
	"current_catalog": true, "current_schema": true, "current_database": true,
	"current_user": true, "session_user": true, "current_role": true,
}

// sessionValue binds the functions BI tools and drivers call to learn about
// the connection: version(), database()/schema()/current_schema,
// current_catalog, current_user/user()/session_user. They are constants of
// the statement's session.
func (b *binder) sessionValue(name string) (vec.Expr, bool) {
	switch name {
	case "version":
		v := b.sess.Version
		if v == "" {
			v = "dev"
		}
		return vec.StringLiteral("paimon-flightsql " + v), true
	case "database", "schema", "current_database", "current_schema":
		db := b.sess.Database
		if db == "" && b.sess.Catalog != nil {
			db = b.sess.Catalog.DefaultDatabase()
		}
		return vec.StringLiteral(db), true
	case "current_catalog":
		c := b.sess.CatalogName
		if c == "" {
			c = "paimon"
		}
		return vec.StringLiteral(c), true
	case "current_user", "user", "session_user", "system_user", "current_role":
		u := b.sess.User
		if u == "" {
			u = "anonymous"
		}
		return vec.StringLiteral(u), true
	}
	return nil, false
}
