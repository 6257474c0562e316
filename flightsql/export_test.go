package flightsql

import "time"

// Test hooks for the external test package.

func (s *Server) IssueTokenForTest(user string, issued time.Time) string {
	pwfp := ""
	if u, ok := s.auth.user(user); ok {
		pwfp = passwordFingerprint(u.PasswordHash)
	}
	tok, _ := s.sign.issueToken(user, false, pwfp, time.Hour, issued)
	return tok
}

func IssueTokenWithKeyForTest(key []byte, user string, issued time.Time) string {
	tok, _ := newSigner(key).issueToken(user, false, "", time.Hour, issued)
	return tok
}

// DecoyCostForTest is the bcrypt cost of the hash checked for unknown users.
func (s *Server) DecoyCostForTest() int { return s.auth.users.Load().decoyCost }

// SetClockForTest replaces the authenticator's clock.
func (s *Server) SetClockForTest(now func() time.Time) { s.auth.now = now }

func (s *Server) ActiveStreamsForTest() int { return s.queries.active() }

func (s *Server) NumSqlInfoKeysForTest() int { return len(s.sql.sqlInfoKeys) }

func (s *Server) MetricValueForTest(name string, labels ...string) float64 {
	return s.metrics.value(name, labels...)
}
