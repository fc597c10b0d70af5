package heartbeat_test

import (
	"os"
	"testing"

	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestMain stops the Postgres cluster the tests on a Postgres board
// share (pgtest.URL): one cluster for the package, not one a test.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
