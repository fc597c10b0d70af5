// Package pgtest gives tests a real PostgreSQL database: a throwaway
// cluster started once per test process in a temporary directory, or the
// server BONSAI_TEST_DATABASE_URL names. Each test gets a schema of its
// own in it, dropped when the test ends, so tests run in parallel on one
// server without seeing each other's tables.
//
// Where Postgres is missing, a test is skipped; with CI=true it fails,
// because CI installs Postgres (.ci/run) and a skipped test there would
// hide a broken install.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names a server to use instead of starting one. Its user must be
// allowed to create schemas in its database.
const EnvURL = "BONSAI_TEST_DATABASE_URL"

// EnvBin names the directory of the Postgres programs (initdb, pg_ctl);
// by default the newest /usr/lib/postgresql/*/bin, else PATH.
const EnvBin = "BONSAI_POSTGRES_BIN"

var (
	once    sync.Once
	server  string // the URL of the server every test shares
	cluster *Cluster
	errNone error // why there is no server
)

// Main runs the tests of a package that uses URL and stops the cluster
// they started. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// m is a *testing.M, or anything that runs the tests and reports their
// exit code, for a TestMain with more to do after the tests.
func Main(m interface{ Run() int }) int {
	code := m.Run()
	if cluster != nil {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// Closing wraps m, a *testing.M, so that running it stops the cluster
// the tests started, as Main does: for a TestMain that hands m on, as
// testscript.Main takes it.
func Closing(m interface{ Run() int }) interface{ Run() int } {
	return closing{m}
}

type closing struct{ m interface{ Run() int } }

func (c closing) Run() int { return Main(c.m) }

// URL returns the URL of a new, empty schema for t alone: its search_path
// is that schema, so what a store creates there is t's. The schema is
// dropped when t ends. The cluster it is in is stopped by Main.
func URL(t testing.TB) string {
	t.Helper()
	return schemaIn(t, Server(t))
}

// OwnURL is URL for a test that needs a server to itself (or a package
// whose TestMain neither calls Main nor wraps m in Closing): unless
// BONSAI_TEST_DATABASE_URL names a server, it starts a cluster for t
// alone and stops it when t ends.
func OwnURL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return schemaIn(t, u)
	}
	c, err := Start(context.Background())
	if err != nil {
		missing(t, err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return schemaIn(t, c.URL)
}

// missing skips t for want of Postgres, or fails it when CI=true.
func missing(t testing.TB, why error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("pgtest: no PostgreSQL for this test, and CI=true: %v (.ci/run installs the postgresql package)", why)
	}
	t.Skipf("pgtest: no PostgreSQL: %v; install it or set %s", why, EnvURL)
}

// schemaIn creates a schema for t on the server base, dropped when t
// ends.
func schemaIn(t testing.TB, base string) string {
	t.Helper()
	u, drop, err := NewSchema(base)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return u
}

// NewSchema creates a new, empty schema on the server base and returns
// the URL whose search_path is that schema, and the function dropping it.
func NewSchema(base string) (string, func() error, error) {
	name := "t_" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := exec1(ctx, base, "CREATE SCHEMA "+name); err != nil {
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec1(ctx, base, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			return fmt.Errorf("drop schema: %w", err)
		}
		return nil
	}
	return WithSearchPath(base, name), drop, nil
}

// Available reports why no Postgres can be had for tests (nil when one
// can): BONSAI_TEST_DATABASE_URL, or the programs to start a cluster.
func Available() error {
	if os.Getenv(EnvURL) != "" {
		return nil
	}
	_, err := binDir()
	return err
}

// Server returns the URL of the shared server, starting the cluster on
// first use. Without Postgres it skips t, or fails it when CI=true.
func Server(t testing.TB) string {
	t.Helper()
	u, err := Shared()
	if err != nil {
		missing(t, err)
	}
	return u
}

// Shared is Server for code without a test at hand (a testscript
// command): the URL of the shared server, started on first use and
// stopped by Main, or why there is none. The caller decides whether that
// skips or fails.
func Shared() (string, error) {
	once.Do(func() {
		if u := os.Getenv(EnvURL); u != "" {
			server = u
			return
		}
		cluster, errNone = Start(context.Background())
		if cluster != nil {
			server = cluster.URL
		}
	})
	if server == "" {
		return "", errNone
	}
	return server, nil
}

// WithSearchPath returns u with its search_path set to schema.
func WithSearchPath(u, schema string) string {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "postgres" && pu.Scheme != "postgresql") {
		// a keyword/value connection string
		return u + " search_path=" + schema
	}
	q := pu.Query()
	q.Set("search_path", schema)
	pu.RawQuery = q.Encode()
	return pu.String()
}

// exec1 runs one statement on its own connection.
func exec1(ctx context.Context, u, sql string) error {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Cluster is a PostgreSQL cluster in a temporary directory, listening on
// a unix socket there only.
type Cluster struct {
	// URL connects to its "postgres" database as the superuser "bonsai".
	URL string
	dir string
	bin string
	// as runs a program as the cluster's owner.
	as []string
}

// Start initialises and starts a cluster in a new temporary directory.
// Postgres refuses to run as root, so when the process is root the
// cluster belongs to the user "postgres" (Debian's package creates it)
// and its programs run through runuser.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bonsai-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		if c.as, err = asPostgres(dir); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run(ctx, "initdb", "-D", data, "-U", "bonsai", "--auth=trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	// Durability does not matter for a throwaway cluster: no fsync.
	// Shared memory in files of the data directory, not /dev/shm, which
	// containers often keep small.
	opts := "-k " + dir + " -c listen_addresses= -c fsync=off -c synchronous_commit=off" +
		" -c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB -c dynamic_shared_memory_type=mmap"
	if out, err := c.run(ctx, "pg_ctl", "start", "-w", "-t", "60", "-D", data,
		"-l", filepath.Join(dir, "log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	c.URL = "postgres://bonsai@/postgres?host=" + url.QueryEscape(dir) + "&sslmode=disable"
	return c, nil
}

// Stop stops the cluster and removes its directory.
func (c *Cluster) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := c.run(ctx, "pg_ctl", "stop", "-w", "-m", "fast", "-D", filepath.Join(c.dir, "data"))
	if rerr := os.RemoveAll(c.dir); err == nil && rerr != nil {
		return rerr
	}
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
	}
	return nil
}

// run runs one of the cluster's programs as its owner.
func (c *Cluster) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, c.as...), filepath.Join(c.bin, prog)), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// asPostgres hands dir to the user "postgres" and returns the prefix that
// runs a program as that user.
func asPostgres(dir string) ([]string, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and no user \"postgres\" to run the cluster as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		return nil, fmt.Errorf("running as root, and no runuser to run the cluster as postgres: %w", err)
	}
	return []string{runuser, "-u", "postgres", "--"}, nil
}

// binDir finds the directory holding initdb and pg_ctl.
func binDir() (string, error) {
	if d := os.Getenv(EnvBin); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no initdb in /usr/lib/postgresql/*/bin nor on PATH (Debian: apt-get install postgresql)")
}

// version reads the major version of /usr/lib/postgresql/N/bin.
func version(bin string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return v
}
