package agentrunner_test

import (
	"os"
	"testing"

	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
