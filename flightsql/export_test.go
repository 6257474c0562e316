package flightsql

import "time"

// Test hooks for the external test package.

func (s *Server) IssueTokenForTest(user string, issued time.Time) string {
	tok, _ := s.sign.issueToken(user, false, time.Hour, issued)
	return tok
}

func IssueTokenWithKeyForTest(key []byte, user string, issued time.Time) string {
	tok, _ := signer{key: key}.issueToken(user, false, time.Hour, issued)
	return tok
}

func (s *Server) ActiveStreamsForTest() int { return s.queries.active() }

func (s *Server) NumSqlInfoKeysForTest() int { return len(s.sql.sqlInfoKeys) }

func (s *Server) MetricValueForTest(name string, labels ...string) float64 {
	return s.metrics.value(name, labels...)
}
