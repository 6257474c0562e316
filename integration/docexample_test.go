package integration

import (
	"context"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// openPaimon is the ADBC Go example of docs/design/flightsql.md, verbatim
// (TestDocExamples checks that the document shows this function).
func openPaimon(ctx context.Context, uri, user, password string) (adbc.Connection, error) {
	db, err := flightsql.NewDriver(memory.DefaultAllocator).NewDatabase(map[string]string{
		adbc.OptionKeyURI:      uri, // grpc://127.0.0.1:32010, grpc+tls:// with TLS
		adbc.OptionKeyUsername: user,
		adbc.OptionKeyPassword: password,
	})
	if err != nil {
		return nil, err
	}
	cnxn, err := db.Open(ctx)
	if err != nil {
		return nil, err
	}
	// Optional time travel: a session option of the connection.
	err = cnxn.(adbc.PostInitOptions).SetOption("adbc.flight.sql.session.option.scan.snapshot-id", "2")
	return cnxn, err
}
