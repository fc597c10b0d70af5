package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// networks are the modes the persistent sandbox's tests run in.
var networks = []Network{NetworkNone, NetworkProxy}

// waitFile waits until the host file p exists.
func waitFile(t *testing.T, p string) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(p); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", p)
}

// running returns the executor's current server.
func running(s *Executor) *server {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	return s.srv
}

// TestPersistent_Restart: a server killed from the host, or by a command
// from inside, is replaced by a new one for the next command; the
// command that killed it ends as killed, with a note.
func TestPersistent_Restart(t *testing.T) {
	requireBwrap(t)
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			s := open(t, t.TempDir(), Options{Network: n})
			if code, out := shell(t, s, "echo one"); code != 0 || out != "one\n" {
				t.Fatalf("exit %d: %q", code, out)
			}
			first := running(s)
			must(t, syscall.Kill(-first.cmd.Process.Pid, syscall.SIGKILL))
			<-first.done
			if code, out := shell(t, s, "echo two"); code != 0 || out != "two\n" {
				t.Fatalf("after the server was killed: exit %d: %q", code, out)
			}
			second := running(s)
			if second == first || second == nil {
				t.Fatal("no new server")
			}
			// The server is PID 1 of the sandbox, which SIGKILL from
			// inside does not reach; an unhandled SIGABRT ends it.
			if code, out := shell(t, s, "echo before; kill -ABRT $PPID; sleep 5; echo after"); code != 137 || !strings.HasPrefix(out, "before\n") || strings.Contains(out, "after") || !strings.Contains(out, "sandbox ended") {
				t.Fatalf("a command that killed its server: exit %d: %q", code, out)
			}
			if code, out := shell(t, s, "echo three"); code != 0 || out != "three\n" {
				t.Fatalf("after a command killed the server: exit %d: %q", code, out)
			}
			if third := running(s); third == second {
				t.Fatal("the killed server was kept")
			}
		})
	}
}

// TestPersistent_KilledBeforeItsPID: a command that kills its server
// before the server has sent its PID ran; it is not sent to a new server
// to run again, and ends as killed, with a note.
func TestPersistent_KilledBeforeItsPID(t *testing.T) {
	requireBwrap(t)
	t.Setenv(pidDelayVar, "300ms")
	root := t.TempDir()
	// The test binary is the server here: it reads pidDelayVar.
	s := open(t, root, Options{Env: []string{pidDelayVar}, Server: testBinary(t)})
	code, out := shell(t, s, "echo ran >> runs; kill -ABRT $PPID; sleep 5")
	if code != 137 || !strings.Contains(out, "sandbox ended") {
		t.Errorf("exit %d: %q", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(root, "runs")); err != nil || string(b) != "ran\n" {
		t.Fatalf("runs: %q %v", b, err)
	}
	if code, out := shell(t, s, "echo next"); code != 0 || out != "next\n" {
		t.Fatalf("the next command: exit %d: %q", code, out)
	}
}

// TestPersistent_Concurrent: commands run at once on one executor each
// get their own output, environment and exit; one that leaves a process
// in a session of its own loses it when it ends, though another command
// still runs (so the sandbox is not idle).
func TestPersistent_Concurrent(t *testing.T) {
	requireBwrap(t)
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			h := newHost(t)
			s := open(t, h.root, Options{Network: n, Home: h.home})
			long, cancel := context.WithCancel(context.Background())
			defer cancel()
			longDone := make(chan executor.Exit, 1)
			go func() {
				x, _ := s.Shell(long, "touch .long; sleep 300", executor.RunOptions{})
				longDone <- x
			}()
			waitFile(t, filepath.Join(h.root, ".long"))

			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var out, errOut bytes.Buffer
					x, err := s.Shell(context.Background(), `echo out $N; sleep 0.2; echo err $N >&2; exit $N`,
						executor.RunOptions{Output: &out, Stderr: &errOut, Env: []string{fmt.Sprintf("N=%d", i)}})
					if err != nil || x.Code != i || out.String() != fmt.Sprintf("out %d\n", i) || errOut.String() != fmt.Sprintf("err %d\n", i) {
						errs <- fmt.Errorf("command %d: exit %+v %v: %q %q", i, x, err, out.String(), errOut.String())
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if code, out := shell(t, s, detach(h)); code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if survives(t, token(h)) {
				t.Fatal("a process in a session of its own outlived its command while another ran")
			}
			select {
			case x := <-longDone:
				t.Fatalf("the long command ended: %+v", x)
			default:
			}
			cancel()
			if x := <-longDone; !x.Canceled {
				t.Fatalf("long command: %+v", x)
			}
		})
	}
}

// TestPersistent_CancelKillsGroup: canceling one command kills its
// process group, background children included, and leaves another
// command running.
func TestPersistent_CancelKillsGroup(t *testing.T) {
	requireBwrap(t)
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			root := t.TempDir()
			s := open(t, root, Options{Network: n})
			tokA, tokB := "bonsai-cancel-a-"+filepath.Base(root), "bonsai-cancel-b-"+filepath.Base(root)
			ctxB, cancelB := context.WithCancel(context.Background())
			defer cancelB()
			doneB := make(chan executor.Exit, 1)
			go func() {
				x, _ := s.Shell(ctxB, "sh -c 'sleep 300; : "+tokB+"' & touch .b; wait", executor.RunOptions{})
				doneB <- x
			}()
			ctxA, cancelA := context.WithCancel(context.Background())
			doneA := make(chan executor.Exit, 1)
			var outA bytes.Buffer
			go func() {
				x, _ := s.Shell(ctxA, "echo partial; sh -c 'sleep 300; : "+tokA+"' & touch .a; wait", executor.RunOptions{Output: &outA})
				doneA <- x
			}()
			waitFile(t, filepath.Join(root, ".a"))
			waitFile(t, filepath.Join(root, ".b"))
			cancelA()
			if x := <-doneA; !x.Canceled || x.Code != 137 || outA.String() != "partial\n" {
				t.Fatalf("canceled command: %+v %q", x, outA.String())
			}
			if survives(t, tokA) {
				t.Fatal("the canceled command's background child survived")
			}
			if len(withCmdline(tokB)) == 0 {
				t.Fatal("canceling one command killed another")
			}
			cancelB()
			if x := <-doneB; !x.Canceled {
				t.Fatalf("second command: %+v", x)
			}
			if survives(t, tokB) {
				t.Fatal("the second command's child survived")
			}
		})
	}
}

// TestPersistent_Stdin: stdin reaches the command from a reader and
// from a file; a command that reads none of a large input still ends.
func TestPersistent_Stdin(t *testing.T) {
	requireBwrap(t)
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			root := t.TempDir()
			s := open(t, root, Options{Network: n})
			ctx := context.Background()
			big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
			var out bytes.Buffer
			x, err := s.Exec(ctx, []string{"cat"}, executor.RunOptions{Stdin: strings.NewReader(big), Output: &out})
			if err != nil || x.Code != 0 || out.String() != big {
				t.Fatalf("from a reader: exit %+v %v, %d bytes back", x, err, out.Len())
			}
			p := filepath.Join(root, "in.txt")
			must(t, os.WriteFile(p, []byte("from a file\n"), 0o644))
			f, err := os.Open(p)
			must(t, err)
			defer f.Close()
			out.Reset()
			x, err = s.Exec(ctx, []string{"cat"}, executor.RunOptions{Stdin: f, Output: &out})
			if err != nil || x.Code != 0 || out.String() != "from a file\n" {
				t.Fatalf("from a file: exit %+v %v: %q", x, err, out.String())
			}
			out.Reset()
			x, err = s.Shell(ctx, "echo ignored", executor.RunOptions{Stdin: strings.NewReader(big + big), Output: &out})
			if err != nil || x.Code != 0 || out.String() != "ignored\n" {
				t.Fatalf("unread input: exit %+v %v: %q", x, err, out.String())
			}
			out.Reset()
			x, err = s.Exec(ctx, []string{"cat"}, executor.RunOptions{Output: &out})
			if err != nil || x.Code != 0 || out.Len() != 0 {
				t.Fatalf("no input: exit %+v %v: %q", x, err, out.String())
			}
		})
	}
}

// TestPersistent_StdoutClosedEarly: a command that closes its stdout
// ends the output there, and the server holds no copy of it. The server
// closes its copy right after the start, so the command may see it for
// an instant on a busy machine: it looks for up to ten seconds, and
// says HELD only if the copy stays.
func TestPersistent_StdoutClosedEarly(t *testing.T) {
	requireBwrap(t)
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			s := open(t, t.TempDir(), Options{Network: n})
			var out, errOut bytes.Buffer
			script := `p=$(readlink /proc/$$/fd/1); echo before; exec >&-
held() { for f in /proc/$PPID/fd/*; do [ "$(readlink $f)" = "$p" ] && return 0; done; return 1; }
i=0; while held && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
held && echo HELD >&2
echo after >&2; exit 4`
			x, err := s.Shell(context.Background(), script, executor.RunOptions{Output: &out, Stderr: &errOut})
			if err != nil || x.Code != 4 || out.String() != "before\n" || errOut.String() != "after\n" {
				t.Fatalf("exit %+v %v: %q %q", x, err, out.String(), errOut.String())
			}
		})
	}
}

// TestPersistent_CloseWithCommandsRunning: Close ends running commands,
// as killed, with everything they started, and refuses further ones.
func TestPersistent_CloseWithCommandsRunning(t *testing.T) {
	requireBwrap(t)
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			root := t.TempDir()
			s := open(t, root, Options{Network: n})
			tok := "bonsai-close-" + filepath.Base(root)
			done := make(chan executor.Exit, 2)
			for i := 0; i < 2; i++ {
				go func() {
					x, _ := s.Shell(context.Background(), fmt.Sprintf("setsid sh -c 'sleep 300; : %s' & touch .up%d; sleep 300", tok, i), executor.RunOptions{})
					done <- x
				}()
				waitFile(t, filepath.Join(root, fmt.Sprintf(".up%d", i)))
			}
			must(t, s.Close())
			for i := 0; i < 2; i++ {
				if x := <-done; x.Code != 137 {
					t.Errorf("a command running at Close: %+v", x)
				}
			}
			if survives(t, tok) {
				t.Fatal("a process outlived Close")
			}
			if _, err := s.Shell(context.Background(), "true", executor.RunOptions{}); err == nil {
				t.Fatal("a command ran after Close")
			}
		})
	}
}

// TestPersistent_Marked: the mark is on the server and every command, so
// local.KillMarked ends the sandbox after a crash of the runtime.
func TestPersistent_Marked(t *testing.T) {
	requireBwrap(t)
	root := t.TempDir()
	s := open(t, root, Options{Network: NetworkProxy})
	mark := "BONSAI_RUN_ID=persist-" + filepath.Base(root)
	s.Mark(mark)
	done := make(chan executor.Exit, 1)
	go func() {
		x, _ := s.Shell(context.Background(), "touch .up; sleep 300", executor.RunOptions{})
		done <- x
	}()
	waitFile(t, filepath.Join(root, ".up"))
	n, err := local.KillMarked(mark)
	if err != nil || n < 2 { // the server, the command
		t.Fatalf("KillMarked found %d: %v", n, err)
	}
	if x := <-done; x.Code != 137 {
		t.Fatalf("exit %+v", x)
	}
	if code, out := shell(t, s, "echo again"); code != 0 || out != "again\n" {
		t.Fatalf("after KillMarked: exit %d: %q", code, out)
	}
}

// TestPersistent_SharedTmp: the commands of one executor share a /tmp of
// their own, which is not the host's.
func TestPersistent_SharedTmp(t *testing.T) {
	requireBwrap(t)
	root := t.TempDir()
	s := open(t, root, Options{})
	name := "/tmp/bonsai-shared-" + filepath.Base(root)
	if code, out := shell(t, s, "echo kept > "+name); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if code, out := shell(t, s, "cat "+name); code != 0 || out != "kept\n" {
		t.Fatalf("exit %d: %q", code, out)
	}
	if _, err := os.Stat(name); err == nil {
		os.Remove(name)
		t.Fatal("the sandbox's /tmp is the host's")
	}
}

// TestPersistent_NetworkAll: with the host's network (and its /run), the
// server's binary is bound where it is on the host.
func TestPersistent_NetworkAll(t *testing.T) {
	requireBwrap(t)
	s := open(t, t.TempDir(), Options{Network: NetworkAll})
	if code, out := shell(t, s, "echo all"); code != 0 || out != "all\n" {
		t.Fatalf("exit %d: %q", code, out)
	}
}

// TestContract_PerCommand: the per-command path keeps the contract too.
func TestContract_PerCommand(t *testing.T) {
	requireBwrap(t)
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			runContract(t, Options{Network: n, PerCommand: true})
		})
	}
}

// TestPersistent_OnlyStdio: a command gets its stdin, stdout and stderr
// and no other descriptor of the server's or of the runtime's.
func TestPersistent_OnlyStdio(t *testing.T) {
	requireBwrap(t)
	r, w, err := os.Pipe() // inheritable: a descriptor the runtime's parent left open
	must(t, err)
	defer r.Close()
	defer w.Close()
	if _, err := syscall.Dup(int(w.Fd())); err != nil { // without close-on-exec
		t.Fatal(err)
	}
	for _, n := range networks {
		t.Run(string(n), func(t *testing.T) {
			s := open(t, t.TempDir(), Options{Network: n})
			if code, out := shell(t, s, "cd /proc/self/fd && echo *"); code != 0 || out != "0 1 2 3\n" { // 3: the directory echo lists
				t.Fatalf("exit %d: %q", code, out)
			}
		})
	}
}

// TestPersistent_LargeRequest: a script larger than one read of the
// socket reaches the server whole.
func TestPersistent_LargeRequest(t *testing.T) {
	requireBwrap(t)
	s := open(t, t.TempDir(), Options{})
	big := strings.Repeat("x", 100<<10)
	if code, out := shell(t, s, "cat <<'EOF'\n"+big+"\nEOF"); code != 0 || out != big+"\n" {
		t.Fatalf("exit %d, %d bytes back", code, len(out))
	}
}

// TestPersistent_MarkAgainKeepsServer: marking the executor with a mark it
// already has (the workspace marks it before the checkout, the heartbeat
// again after) keeps the running sandbox; a new mark starts a new one
// whose processes carry it.
func TestPersistent_MarkAgainKeepsServer(t *testing.T) {
	requireBwrap(t)
	root := t.TempDir()
	s := open(t, root, Options{})
	mark := "BONSAI_RUN_ID=again-" + filepath.Base(root)
	s.Mark(mark)
	if code, out := shell(t, s, "echo $BONSAI_RUN_ID"); code != 0 || out != "again-"+filepath.Base(root)+"\n" {
		t.Fatalf("exit %d: %q", code, out)
	}
	first := running(s)
	s.Mark(mark)
	shell(t, s, "true")
	if running(s) != first {
		t.Error("marking again with the same mark started the sandbox again")
	}
	s.Mark("BONSAI_OTHER=1")
	if code, out := shell(t, s, "cat /proc/1/environ | tr '\\0' '\\n' | grep -c -e ^BONSAI_OTHER=1 -e ^BONSAI_RUN_ID="); code != 0 || out != "2\n" {
		t.Errorf("after a new mark, the sandbox's first process has %q of the two marks (exit %d)", out, code)
	}
	if running(s) == first {
		t.Error("a new mark kept the sandbox whose processes lack it")
	}
}

// TestPersistent_ServerIsPID1ReapsOrphans: the command server is the
// sandbox's PID 1 (bwrap --as-pid-1, one bwrap process fewer a sandbox),
// so the orphans a command leaves are its children, and it waits for
// them: none stays a zombie while another command runs.
func TestPersistent_ServerIsPID1ReapsOrphans(t *testing.T) {
	requireBwrap(t)
	root := t.TempDir()
	s := open(t, root, Options{})
	if code, out := shell(t, s, "tr '\\0' ' ' < /proc/1/cmdline"); code != 0 || !strings.Contains(out, " --serve ") {
		t.Fatalf("PID 1 of the sandbox is %q (exit %d), want the command server", out, code)
	}
	// A command keeps the server busy, so that it does not end every
	// process when the next one ends.
	busy := make(chan struct{})
	go func() {
		defer close(busy)
		s.Shell(context.Background(), "touch .busy; sleep 300", executor.RunOptions{Timeout: 5 * time.Minute})
	}()
	waitFile(t, filepath.Join(root, ".busy"))
	// Orphans: each subshell's true outlives its parent for a moment,
	// then dies reparented to PID 1.
	if code, out := shell(t, s, "for i in 1 2 3 4 5; do (sh -c 'sleep 0.05' &); done; sleep 0.3"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	zombies := "for f in /proc/[0-9]*/stat; do cut -d' ' -f3 $f; done 2>/dev/null | grep -c Z"
	deadline := time.Now().Add(time.Minute)
	for {
		_, out := shell(t, s, zombies)
		if strings.TrimSpace(out) == "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s zombies still in the sandbox after a minute", strings.TrimSpace(out))
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Close()
	<-busy
}
