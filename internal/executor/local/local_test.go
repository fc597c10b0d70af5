package local_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/executortest"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

func openLocal(t *testing.T, root string) executor.Executor {
	t.Helper()
	l, err := local.New(root, local.Options{Env: []string{"BONSAI_TEST_*", "GITHUB_TOKEN"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestLocal_Contract(t *testing.T) {
	executortest.Run(t, openLocal)
}

func TestLocal_ContractDurable(t *testing.T) {
	executortest.Run(t, func(t *testing.T, root string) executor.Executor {
		l, err := local.New(root, local.Options{Durable: true, Env: []string{"BONSAI_TEST_*", "GITHUB_TOKEN"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	})
}

func TestLocal_KillLeavesNoProcess(t *testing.T) {
	w := executortest.NewWorkspace(t)
	ex := openLocal(t, w.Root)
	start := time.Now()
	x, err := ex.Shell(context.Background(), "sleep 100 & sleep 100; wait", executor.RunOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= 2*time.Second || !x.TimedOut {
		t.Fatalf("returned after %v, exit %+v", d, x)
	}
	if pids := groupMembers(t, x.PID); len(pids) > 0 {
		t.Fatalf("process group %d still has live members %v", x.PID, pids)
	}
}

func TestLocal_BackgroundChildKilledAfterExit(t *testing.T) {
	w := executortest.NewWorkspace(t)
	ex := openLocal(t, w.Root)
	start := time.Now()
	x, err := ex.Shell(context.Background(), "sleep 100 & echo done", executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
	if pids := groupMembers(t, x.PID); len(pids) > 0 {
		t.Fatalf("background child survived: %v", pids)
	}
}

// groupMembers returns the live (non-zombie) processes of group pgid,
// polling briefly because SIGKILL is delivered asynchronously. Zombies are
// dead: they only wait for an init that may not reap in containers.
func groupMembers(t *testing.T, pgid int) []string {
	t.Helper()
	var live []string
	for range 50 {
		live = live[:0]
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
			if err != nil {
				continue
			}
			// pid (comm) state ppid pgrp ...
			s := string(b)
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
				live = append(live, d.Name())
			}
		}
		if len(live) == 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return live
}

func TestLocal_DenylistBeatsConfig(t *testing.T) {
	t.Setenv("BONSAI_TEST_VISIBLE", "yes")
	t.Setenv("BONSAI_TEST_API_KEY", "no")
	w := executortest.NewWorkspace(t)
	ex := openLocal(t, w.Root)
	var out bytes.Buffer
	if _, err := ex.Shell(context.Background(), "env", executor.RunOptions{Output: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "BONSAI_TEST_VISIBLE=yes") || strings.Contains(out.String(), "BONSAI_TEST_API_KEY") {
		t.Fatalf("env:\n%s", out.String())
	}
}

func TestCleanEnv(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "OPENAI_API_KEY=x", "my_token=x", "AWS_REGION=x",
		"LD_PRELOAD=x", "DYLD_LIBRARY_PATH=x", "NODE_OPTIONS=x", "GIT_ASKPASS=x", "SSH_AUTH_SOCK=x",
		"DB_SECRET=x", "RANDOM_VAR=x", "CUSTOM=y", "CUSTOM_TOKEN=x",
		"CUSTOM_KEY=x", "CUSTOM_PASSWORD=x", "CUSTOM_CREDENTIALS=x", "BONSAI_DATABASE_URL=postgres://u:pw@h/d", "PGPASSWORD=pw"}
	got := executor.CleanEnv(parent, []string{"CUSTOM*", "SSH_AUTH_SOCK", "BONSAI_DATABASE_URL", "PGPASSWORD"})
	want := "PATH=/bin HOME=/h LC_ALL=C CUSTOM=y GIT_TERMINAL_PROMPT=0 GIT_PAGER=cat PAGER=cat"
	if strings.Join(got, " ") != want {
		t.Fatalf("CleanEnv = %v\nwant %s", got, want)
	}
}

// BenchmarkLocal_ShellTrue measures one bash round trip. Target: < 5 ms.
func BenchmarkLocal_ShellTrue(b *testing.B) {
	l, err := local.New(b.TempDir(), local.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for b.Loop() {
		if _, err := l.Shell(context.Background(), "true", executor.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLocal_ReadFiles(t *testing.T) {
	w := executortest.NewWorkspace(t)
	l, err := local.New(w.Root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	big := strings.Repeat("0123456789", 30000)
	if err := os.WriteFile(w.Root+"/sub/big.txt", []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	err = l.ReadFiles(context.Background(), "sub-link", []string{"b.txt", "missing", "../a.txt", "up", "big.txt", "b.txt"}, func(i int, data []byte, err error) {
		if err != nil {
			got[strconv.Itoa(i)] = err.Error()
		} else {
			got[strconv.Itoa(i)] = string(data)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"0": "beta\n",
		"1": "read sub-link/missing: no such file or directory",
		"2": "read a.txt: path is outside the workspace",
		"3": "read sub-link/up: path is outside the workspace",
		"4": big,
		"5": "beta\n",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("file %s: got %q, want %q", k, got[k], v)
		}
	}
	if err := l.ReadFiles(context.Background(), "dir-out", []string{"secret.txt"}, func(int, []byte, error) {
		t.Error("read through a symlink out of the root")
	}); !errors.Is(err, executor.ErrOutsideRoot) {
		t.Fatalf("err = %v", err)
	}
}
