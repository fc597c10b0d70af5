package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdProc checks, on Linux, whether the process whose pid a file holds is
// alive (not gone, not a zombie), waiting up to 20 seconds for it to
// become so: proc alive|gone <pidfile>.
func cmdProc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[0] != "alive" && args[0] != "gone") {
		ts.Fatalf("usage: proc alive|gone <pidfile>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		ts.Fatalf("proc: %s holds no pid: %q", args[1], b)
	}
	want := args[0] == "alive"
	for i := 0; i < 2000; i++ {
		if procAlive(pid) == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Fatalf("process %d (%s) is not %s", pid, args[1], args[0])
}

// procAlive reads /proc/<pid>/stat: a zombie has died.
func procAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// cmdProcs checks, on Linux, whether some process whose command line
// holds the token a file holds is alive, waiting up to 20 seconds for the
// answer to become the one wanted: procs alive|gone <tokenfile>. It finds
// processes started inside a sandbox, whose pids are their namespace's.
func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[0] != "alive" && args[0] != "gone") {
		ts.Fatalf("usage: procs alive|gone <tokenfile>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	tok := strings.TrimSpace(string(b))
	if len(tok) < 8 {
		ts.Fatalf("procs: %s holds no token: %q", args[1], b)
	}
	want := args[0] == "alive"
	for i := 0; i < 2000; i++ {
		if withToken(tok) == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Fatalf("no process holding %q is %s", tok, args[0])
}

// withToken reports whether a live process's command line holds tok.
func withToken(tok string) bool {
	ds, _ := os.ReadDir("/proc")
	for _, d := range ds {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(b, []byte(tok)) && procAlive(pid) {
			return true
		}
	}
	return false
}
