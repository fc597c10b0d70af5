package executor_test

import (
	"bytes"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// TestCopyOutput_KeepsWhatThePipeHeldAtTheDeadline: a copy that starts
// only after DrainOutput's deadline (on a loaded machine its goroutine
// may run that late) still copies what the command wrote before it ended,
// while a process that outlived the command holds the pipe open.
func TestCopyOutput_KeepsWhatThePipeHeldAtTheDeadline(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("pipes take no deadline on Windows")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // the process that outlived the command
	// More than one read's 32 KiB, less than a pipe holds.
	want := bytes.Repeat([]byte("commit 83d5594 refs/remotes/origin/main\n"), 1000)
	if _, err := w.Write(want); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	done := make(chan struct{}, 1)
	executor.CopyOutput(&got, r, done)
	<-done
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("copied %d bytes of the %d the pipe held", got.Len(), len(want))
	}
}
