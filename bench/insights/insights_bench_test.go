package insightsbench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	storebench "github.com/bonsai-run/bonsai/bench/store"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/web"
)

// rounds is how many times each measure is taken; the median is shown.
const rounds = 15

// TestInsightsBench seeds the board, copies it to Postgres with `bonsai
// store migrate`, and times `bonsai stats --json` (a fresh process each
// time, start-up included) and the Insights page (served in this
// process) on both stores, for the default 30 days and for all time. It
// prints figures and fails nothing on time: a busy machine is not a bug.
func TestInsightsBench(t *testing.T) {
	if os.Getenv("BONSAI_BENCH_INSIGHTS") == "" {
		t.Skip("set BONSAI_BENCH_INSIGHTS=1 to run the insights benchmark")
	}
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := storebench.Seed(ctx, filepath.Join(data, "bonsai.db"), storebench.Board{Projects: 10, Tickets: 200, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := Fill(ctx, filepath.Join(data, "bonsai.db"), 20_000, 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("board: 10 projects, 2,000 tickets, 20,000 runs, written in %v", time.Since(start).Round(time.Millisecond))
	bin := filepath.Join(dir, "bonsai")
	run(t, "", "go", "build", "-o", bin, "../../cmd/bonsai")

	cluster, err := pgtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	env := []string{"BONSAI_DATA_DIR=" + data}
	run(t, strings.Join(env, "\n"), bin, "store", "migrate", "--to", cluster.URL)
	pgEnv := append(slices.Clone(env), "BONSAI_DATABASE_URL="+cluster.URL)

	t.Logf("machine: %d CPUs, load %s", runtime.NumCPU(), loadAvg())
	t.Logf("bonsai version (a process's start-up, for scale): %s", timeCmd(t, env, bin, "version"))
	for _, since := range []string{"30d", "all"} {
		t.Logf("bonsai stats --json --since %s: SQLite %s, Postgres %s", since,
			timeCmd(t, env, bin, "stats", "--json", "--since", since), timeCmd(t, pgEnv, bin, "stats", "--json", "--since", since))
	}
	lite, err := sqlite.Open(ctx, filepath.Join(data, "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := postgres.Open(ctx, cluster.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	for _, since := range []string{"30d", "all"} {
		t.Logf("GET /insights?since=%s: SQLite %v, Postgres %v", since,
			timePage(t, data, lite, "/insights?since="+since), timePage(t, data, pg, "/insights?since="+since))
	}
	t.Logf("GET /p/p003/insights?since=all: SQLite %v, Postgres %v",
		timePage(t, data, lite, "/p/p003/insights?since=all"), timePage(t, data, pg, "/p/p003/insights?since=all"))
	t.Logf("load after: %s", loadAvg())
}

// run runs a command with env (lines KEY=VALUE) added, failing t on error.
func run(t *testing.T, env string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = os.Environ()
	if env != "" {
		cmd.Env = append(cmd.Env, strings.Split(env, "\n")...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// timeCmd returns the median wall time of the command and, after " cpu ",
// the median CPU time (user and system) of its process, which a busy
// machine inflates less (a Postgres server's own CPU is not in it).
func timeCmd(t *testing.T, env []string, bin string, args ...string) string {
	t.Helper()
	var ds, cpu []time.Duration
	for range rounds {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		start := time.Now()
		out, err := cmd.Output()
		if err != nil || (args[0] == "stats" && !strings.Contains(string(out), `"landed"`)) {
			t.Fatalf("%s %v: %v\n%.300s", bin, args, err, out)
		}
		ds = append(ds, time.Since(start))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	return median(ds).String() + " (cpu " + median(cpu).String() + ")"
}

// timePage serves the store's web UI and returns the median time of a GET
// of path, the whole page read.
func timePage(t *testing.T, data string, s web.Store, path string) time.Duration {
	t.Helper()
	dir := config.Dir(data)
	tok, err := os.ReadFile(dir.WebTokenFile())
	if err != nil {
		if _, err := config.Init(dir); err != nil {
			t.Fatal(err)
		}
		if tok, err = os.ReadFile(dir.WebTokenFile()); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := web.New(web.Options{Store: s, Token: strings.TrimSpace(string(tok)), Dir: dir, Author: "bench"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if res, err := c.Get(ts.URL + "/?token=" + strings.TrimSpace(string(tok))); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	var ds []time.Duration
	for range rounds {
		start := time.Now()
		res, err := c.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, err = b.ReadFrom(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 || !strings.Contains(b.String(), `svg class="chart"`) {
			t.Fatalf("GET %s: %d %v\n%.300s", path, res.StatusCode, err, b.String())
		}
		ds = append(ds, time.Since(start))
	}
	return median(ds)
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2].Round(100 * time.Microsecond)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
