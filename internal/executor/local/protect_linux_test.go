package local_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// TestLocal_ParentEnvironHidden starts a runtime process whose environment
// holds an API key and has it run a command that reads its parent's
// /proc/<pid>/environ: the key must not come out.
func TestLocal_ParentEnvironHidden(t *testing.T) {
	if os.Getenv("BONSAI_ENVIRON_HELPER") == "1" {
		return
	}
	bin := os.Args[0]
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// root may read any process's environ; run the runtime as nobody,
		// as a user's heartbeat runs, from a copy nobody may execute.
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "executor.test")
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	cmd := exec.Command(bin, "-test.run=^TestLocalHelper_ReadParentEnviron$", "-test.v")
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "BONSAI_ENVIRON_HELPER=1", "DEMO_API_KEY=sk-SECRET-42", "TMPDIR=/tmp", "HOME=/tmp")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "helper ran") {
		t.Fatalf("helper did not run:\n%s", out)
	}
	if strings.Contains(string(out), "key read: yes") {
		t.Errorf("a command read the runtime's API key from /proc/$PPID/environ")
	}
}

// TestLocalHelper_ReadParentEnviron is the runtime process of
// TestLocal_ParentEnvironHidden; it does nothing in a normal test run.
func TestLocalHelper_ReadParentEnviron(t *testing.T) {
	if os.Getenv("BONSAI_ENVIRON_HELPER") != "1" {
		t.Skip("helper process only")
	}
	l, err := local.New(t.TempDir(), local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out bytes.Buffer
	if _, err := l.Shell(context.Background(), `tr '\0' '\n' < /proc/$PPID/environ`, executor.RunOptions{Output: &out}); err != nil {
		t.Fatal(err)
	}
	// Print only whether the key came out: the rest of the environment
	// is none of the test log's business.
	fmt.Printf("helper ran\nkey read: %v\n", map[bool]string{true: "yes", false: "no"}[strings.Contains(out.String(), "sk-SECRET-42")])
}
