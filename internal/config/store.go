package config

import (
	"errors"
	"net/url"
	"strings"
)

// Store chooses where the board lives (docs/postgres.md). The zero value
// is the SQLite file in the data directory.
type Store struct {
	// URL, when set, is a postgres:// URL: every command then uses that
	// Postgres database instead of bonsai.db. BONSAI_DATABASE_URL
	// overrides it.
	URL string `json:"url,omitempty"`
}

func init() {
	keys = append(keys, key{name: "store.url",
		help:  "postgres://USER@HOST:5432/DATABASE to keep the board in Postgres (\"\": bonsai.db in the data directory)",
		str:   func(c *Config) *string { return &c.Store.URL },
		check: checkStoreURL})
}

// checkStoreURL accepts "" or a postgres:// URL without a password:
// config.json is no place for one, and `config list` prints the value.
func checkStoreURL(s string) error {
	if s == "" {
		return nil
	}
	if !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		return errors.New("must be a postgres:// URL, or \"\" for the SQLite file in the data directory")
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("is not a valid URL; write it as postgres://USER@HOST:5432/DATABASE")
	}
	_, hasPW := u.User.Password()
	if hasPW || u.Query().Has("password") {
		return errors.New("must not hold a password (config.json is printed by 'bonsai config list'); put it in ~/.pgpass or PGPASSWORD, or give the whole URL in BONSAI_DATABASE_URL")
	}
	return nil
}
