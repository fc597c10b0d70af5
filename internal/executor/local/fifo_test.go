//go:build unix

package local_test

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// TestLocal_ReadFIFO reads a FIFO with no writer, as an agent could leave
// where AGENTS.md or SOUL.md goes: ReadFile and ReadFiles must refuse it at
// once, not wait for a writer (which would hang the heartbeat, lock held).
func TestLocal_ReadFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "AGENTS.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	l, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan [2]error, 1)
	go func() {
		_, err1 := l.ReadFile(context.Background(), "AGENTS.md")
		var err2 error
		l.ReadFiles(context.Background(), ".", []string{"AGENTS.md"}, func(_ int, _ []byte, err error) { err2 = err })
		done <- [2]error{err1, err2}
	}()
	select {
	case errs := <-done:
		for i, err := range errs {
			if !errors.Is(err, executor.ErrNotRegular) {
				t.Errorf("read %d of a FIFO = %v, want ErrNotRegular", i+1, err)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO blocks")
	}
}
