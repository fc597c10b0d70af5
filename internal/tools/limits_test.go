package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/tools"
)

// TestReadGrep_FIFO points read and grep (both backends) at a FIFO with no
// writer, and greps a directory holding one: each call returns at once,
// the direct ones with an error, the directory one skipping the FIFO.
func TestReadGrep_FIFO(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("needle\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, b := range backends {
		if b.name == "rg" && !hasRipgrep() {
			continue
		}
		ts := newSet(t, root, b.search)
		for _, c := range []struct{ tool, args, want string }{
			{"read", `{"path":"pipe"}`, "not a regular file"},
			{"grep", `{"pattern":"x","path":"pipe"}`, "not a regular file"},
			{"grep", `{"pattern":"needle"}`, "a.txt:1: needle"},
		} {
			done := make(chan string, 1)
			go func() { done <- run(t, ts, c.tool, c.args).Text() }()
			select {
			case got := <-done:
				if !strings.Contains(got, c.want) {
					t.Errorf("%s: %s %s = %q, want %q", b.name, c.tool, c.args, got, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: %s %s blocks on the FIFO", b.name, c.tool, c.args)
			}
		}
	}
}

// TestEdit_HugeFileRefused edits a sparse file larger than read's limit:
// edit refuses it from its size instead of loading it whole.
func TestEdit_HugeFileRefused(t *testing.T) {
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "big.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(filepath.Join(root, "big.log"), 300<<20); err != nil {
		t.Fatal(err)
	}
	r := run(t, newSet(t, root, tools.SearchGo), "edit", `{"path":"big.log","old_string":"a","new_string":"b"}`)
	if !r.IsError || !strings.Contains(r.Text(), "too large to edit") {
		t.Errorf("edit of a 300 MB file = %q", r.Text())
	}
}
