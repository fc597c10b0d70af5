package cli_test

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/browsertest"
	"github.com/bonsai-run/bonsai/internal/cli"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

var update = flag.Bool("update", false, "rewrite the testscript files' expected output")

// TestMain lets testscript run `bonsai` as a real process: the test binary
// re-executes itself as the bonsai command. This is the only TestMain of the
// package; register further commands here. After the tests it stops the
// Chromium the browser tests shared (browsertest) and the Postgres cluster
// the scripts and tests on a Postgres board shared (pgtest). Unless -parallel is
// given, twice as many tests as CPUs run at once (parallel_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeArg {
		// The sandbox's proxy bridge is os.Executable(), which is this
		// test binary under its own name, not the "bonsai" testscript
		// dispatches on.
		os.Exit(sandbox.BridgeMain(os.Args[2:]))
	}
	// Every bonsai this process starts (workers, beats, `bonsai up`'s
	// children) inherits it; scripts set it in their own environment.
	os.Setenv("GORACE", raceOptions())
	testscript.Main(moreParallel(browsertest.Closing(pgtest.Closing(m))), map[string]func(){
		// Interrupts cancel the context as in the real binary, so scripts can
		// show what Ctrl-C does.
		"bonsai": cli.MainForTest, // cli.Main, with $BONSAI_TEST_NOW as its clock when set
	})
}

// TestScripts runs testdata/script/*.txtar: each script drives the bonsai
// command against its own temporary data directory, which holds a new
// board unless the script is about making one (script_board_test.go).
func TestScripts(t *testing.T) {
	t.Parallel() // each script has its own work directory and environment
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		// [root]: the tests run as root, who may read any process's
		// /proc/<pid>/environ, the runtime's included.
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			if program, ok := strings.CutPrefix(cond, "engine:"); ok {
				return engineCondition(program)
			}
			if bin, ok := strings.CutPrefix(cond, "npmmcp:"); ok {
				return npmMCPCondition(bin)
			}
			if cond == "postgres" {
				return condPostgres()
			}
			// [cgroup]: sandboxes get a cgroup here, so the runtime sees
			// a fork or an allocation its bounds refused.
			if cond == "cgroup" {
				return sandbox.HasCgroup(sandbox.Limits{Memory: 256 << 20, Processes: 64}), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("BONSAI_DATA_DIR", filepath.Join(env.WorkDir, "data"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("BONSAI_USER", "tester")
			env.Setenv("TZ", "UTC")
			env.Setenv("GORACE", raceOptions())
			// Keys (of credentials and sealed channel secrets) go to a
			// file in the data directory, never a developer's keychain.
			env.Setenv("BONSAI_KEYRING", "file")
			for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"} {
				env.Setenv(k, "")
			}
			if err := os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755); err != nil {
				return err
			}
			return seedBoard(env) // script_board_test.go
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mkrepo":   cmdMkrepo,
			"exits":    cmdExits,
			"block":    cmdBlock,
			"pty":      cmdPty,
			"takeport": cmdTakePort,
			"proc":     cmdProc,
			"procs":    cmdProcs,
			"nobwrap":  cmdNoBwrap,
			"private":  cmdPrivate,
			// fakellm (run_fakellm_test.go) serves scripted model turns.
			"fakellm": cmdFakeLLM(t),
			"engine":  cmdEngine,
			// secret_cmds_test.go: files and web answers free of a secret.
			"nosecret": cmdNoSecret,
			"freeport": cmdFreePort,
			"webget":   cmdWebGet,
			"hookrecv": cmdHookRecv,
			// notify_seal_test.go: channels as bonsai.db holds them.
			"rawchannel": cmdRawChannel,
			// doctor_script_test.go: damage a file as a failing disk would.
			"corrupt":     cmdCorrupt,
			"pathwithout": cmdPathWithout,
			// forge_script_test.go: a fake GitHub, GitLab or Gitea (issue 14).
			"fakeforge": cmdFakeForge(t),
			// mcp_npm_test.go: npm MCP clients and servers (issue 15).
			"npmmcp":   cmdNpmMCP,
			"webtoken": cmdWebToken,
			// postgres_script_test.go: the board on Postgres (issue 18).
			"postgres": cmdPostgres,
			"lease":    cmdLease,
		},
	})
}

// raceOptions is GORACE for the processes the tests start, in a race
// build: without the race detector's one-second sleep when a program
// exits (atexit_sleep_ms), which a script pays at every `exec bonsai`,
// and with the options of the test's own GORACE after it, so they win.
func raceOptions() string {
	g := os.Getenv("GORACE")
	if strings.Contains(g, "atexit_sleep_ms=") {
		return g
	}
	return strings.TrimSpace("atexit_sleep_ms=0 " + g)
}

// cmdMkrepo creates a git repository with one commit on branch main:
// mkrepo <dir>.
func cmdMkrepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkrepo <dir>")
	}
	ts.Check(gittest.Init(ts.MkAbs(args[0]), map[string]string{"README.md": "# test repo\n"}))
}

// cmdExits runs a command and checks its exit code, keeping its output for
// the stdout and stderr assertions that follow: exits <code> <cmd> [args...].
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits <code> <command> [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with code %d, want %d", args[1], got, want)
	}
}

// cmdBlock makes the agent ask a question on a ticket, as ticket_ask does,
// so scripts can show what people see of a blocked ticket: block <ref>.
func cmdBlock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: block <project>#<n>")
	}
	ref, err := board.ParseRef(args[0])
	ts.Check(err)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(ts.Getenv("BONSAI_DATA_DIR"), "bonsai.db"))
	ts.Check(err)
	defer db.Close()
	_, err = db.AddComment(ctx, ref, board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: "Which API should I use?"})
	ts.Check(err)
}

// cmdTakePort listens on a free loopback port until the script ends and puts
// its host:port in an environment variable, so scripts can show what a
// server does when its address is taken: takeport <VAR>.
func cmdTakePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: takeport <VAR>")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { l.Close() })
	ts.Setenv(args[0], l.Addr().String())
}
