package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"

	sqlite "modernc.org/sqlite"
)

// connector opens the pool's connections through the driver and keeps the
// write-ahead log's files when the last connection closes (PERSIST_WAL):
// otherwise every short-lived process — each CLI command — deletes the -wal
// and -shm files on exit and the next one creates them again.
type connector struct {
	base driver.Connector
}

var _ driver.Connector = connector{}

func newConnector(dsn string) (connector, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return connector{}, err
	}
	return connector{base: base}, nil
}

// Connect implements driver.Connector.
func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	fc, ok := conn.(sqlite.FileControl)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("the driver's connection has no file control")
	}
	if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
		conn.Close()
		return nil, fmt.Errorf("keep the write-ahead log: %w", err)
	}
	return conn, nil
}

// Driver implements driver.Connector.
func (c connector) Driver() driver.Driver { return c.base.Driver() }
