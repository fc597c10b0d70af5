package sqlite

import (
	"path"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// migration is one schema step, for tests that build an old schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := sqlstore.MigrationNames(migrationFiles)
	if err != nil {
		return nil, err
	}
	ms := make([]migration, 0, len(names))
	for i, name := range names {
		b, err := migrationFiles.ReadFile(path.Join("migrations", name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: i + 1, name: name, sql: string(b)})
	}
	return ms, nil
}
