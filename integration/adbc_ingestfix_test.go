package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
)

// The ADBC Go Flight SQL driver (v1.12.0) keeps the batch bound for a bulk
// ingest after ExecuteUpdate, so the validation suite's follow-up
// SetSqlQuery + ExecuteQuery on the same statement fails on the client
// ("must set IngestTargetTable before bulk ingestion") before reaching any
// server; the driver's own tests skip bulk ingest. unbindingQuirks wraps the
// driver so SetSqlQuery first unbinds (Bind(nil)), which is what the suite
// assumes; everything sent to the server is unchanged.
type unbindingQuirks struct{ *paimonQuirks }

func (q unbindingQuirks) SetupDriver(t *testing.T) adbc.Driver {
	return unbindDriver{q.paimonQuirks.SetupDriver(t)}
}

type unbindDriver struct{ adbc.Driver }

func (d unbindDriver) NewDatabase(opts map[string]string) (adbc.Database, error) {
	db, err := d.Driver.NewDatabase(opts)
	if err != nil {
		return nil, err
	}
	return unbindDB{db}, nil
}

type unbindDB struct{ adbc.Database }

func (d unbindDB) Open(ctx context.Context) (adbc.Connection, error) {
	c, err := d.Database.Open(ctx)
	if err != nil {
		return nil, err
	}
	return unbindConn{c}, nil
}

type unbindConn struct{ adbc.Connection }

// fullStatement is what the driver's statements implement and the
// statement tests assert.
type fullStatement interface {
	adbc.Statement
	adbc.GetSetOptions
	adbc.StatementExecuteSchema
}

func (c unbindConn) NewStatement() (adbc.Statement, error) {
	st, err := c.Connection.NewStatement()
	if err != nil {
		return nil, err
	}
	return unbindStmt{st.(fullStatement)}, nil
}

type unbindStmt struct{ fullStatement }

func (s unbindStmt) SetSqlQuery(q string) error {
	if err := s.fullStatement.Bind(context.Background(), nil); err != nil {
		return err
	}
	return s.fullStatement.SetSqlQuery(q)
}
