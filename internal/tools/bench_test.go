package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/tools"
)

// BenchmarkRead_5000Lines reads a 5,000-line file. Target: < 2 ms.
func BenchmarkRead_5000Lines(b *testing.B) {
	root := b.TempDir()
	var s strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&s, "line %d of a medium sized source file, with some text\n", i)
	}
	writeTree(b, root, map[string]string{"f.txt": s.String()})
	tool := tools.Lookup(newSet(b, root, tools.SearchGo), "read")
	args := json.RawMessage(`{"path":"f.txt","offset":1000,"limit":1500}`)
	for b.Loop() {
		if r, err := tool.Run(context.Background(), args, nil); err != nil || r.IsError {
			b.Fatal(err, r)
		}
	}
}

// BenchmarkEdit_10000Lines edits one line of a 10,000-line file and
// writes it back atomically. Target: < 5 ms.
func BenchmarkEdit_10000Lines(b *testing.B) {
	root := b.TempDir()
	var s strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&s, "\tvalue%d := compute(%d) // a line of code\n", i, i)
	}
	writeTree(b, root, map[string]string{"f.go": s.String()})
	tool := tools.Lookup(newSet(b, root, tools.SearchGo), "edit")
	a := json.RawMessage(`{"path":"f.go","old_string":"value5000 := compute(5000)","new_string":"value5000 := compute(-1)"}`)
	back := json.RawMessage(`{"path":"f.go","old_string":"value5000 := compute(-1)","new_string":"value5000 := compute(5000)"}`)
	for i := 0; b.Loop(); i++ {
		args := a
		if i%2 == 1 {
			args = back
		}
		if r, err := tool.Run(context.Background(), args, nil); err != nil || r.IsError {
			b.Fatal(err, r.Text())
		}
	}
}

// BenchmarkBash_True is one bash round trip. Target: < 5 ms.
func BenchmarkBash_True(b *testing.B) {
	tool := tools.Lookup(newSet(b, b.TempDir(), tools.SearchGo), "bash")
	args := json.RawMessage(`{"command":"true"}`)
	for b.Loop() {
		if r, err := tool.Run(context.Background(), args, nil); err != nil || r.IsError {
			b.Fatal(err, r)
		}
	}
}

// benchTree returns a generated tree of BONSAI_BENCH_FILES files (default
// 2,000) of BONSAI_BENCH_FILE_KB KB each (default 10), built once under
// BONSAI_BENCH_DIR when set (so a big tree can be reused) or in a
// temporary directory. The comparison uses 50,000 files and 500 MB;
// bench/tools/run.sh runs that.
func benchTree(b *testing.B) string {
	b.Helper()
	files := envInt("BONSAI_BENCH_FILES", 2000)
	kb := envInt("BONSAI_BENCH_FILE_KB", 10)
	root := os.Getenv("BONSAI_BENCH_DIR")
	if root == "" {
		root = b.TempDir()
	}
	root = filepath.Join(root, fmt.Sprintf("tree-%d-%d", files, kb))
	if _, err := os.Stat(filepath.Join(root, ".done")); err == nil {
		return root
	}
	line := "the quick brown fox jumps over the lazy dog while code compiles 0123456789\n"
	chunk := strings.Repeat(line, kb*1024/len(line)+1)[:kb*1024]
	for i := range files {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("s%03d", (i/50)%100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		body := chunk
		if i%1000 == 7 {
			body = chunk[:len(chunk)/2] + "needle_marker found here\n" + chunk[len(chunk)/2:]
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	writeTree(b, root, map[string]string{".gitignore": "*.log\n", ".done": ""})
	return root
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkGrep searches the generated tree with both backends. Targets
// (50,000 files / 500 MB): rg backend ≤ 1.2× rg run directly, Go backend
// ≤ 3× rg.
func BenchmarkGrep(b *testing.B) {
	root := benchTree(b)
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			if be.search == tools.SearchRipgrep && !hasRipgrep() {
				b.Skip("rg is not on PATH")
			}
			tool := tools.Lookup(newSet(b, root, be.search), "grep")
			args := json.RawMessage(`{"pattern":"needle_\\w+"}`)
			for b.Loop() {
				r, err := tool.Run(context.Background(), args, nil)
				if err != nil || r.IsError || !strings.Contains(r.Text(), "needle_marker") {
					b.Fatal(err, r.Text())
				}
			}
		})
	}
	b.Run("rg-direct", func(b *testing.B) {
		if !hasRipgrep() {
			b.Skip("rg is not on PATH")
		}
		for b.Loop() {
			cmd := exec.Command("rg", "--json", "--hidden", "needle_\\w+")
			cmd.Dir = root
			if out, err := cmd.Output(); err != nil || len(out) == 0 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFind lists the generated tree with both backends; same targets
// as BenchmarkGrep, against rg --files.
func BenchmarkFind(b *testing.B) {
	root := benchTree(b)
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			if be.search == tools.SearchRipgrep && !hasRipgrep() {
				b.Skip("rg is not on PATH")
			}
			tool := tools.Lookup(newSet(b, root, be.search), "find")
			args := json.RawMessage(`{"pattern":"f0000*.txt"}`)
			for b.Loop() {
				r, err := tool.Run(context.Background(), args, nil)
				if err != nil || r.IsError {
					b.Fatal(err, r.Text())
				}
			}
		})
	}
	b.Run("rg-direct", func(b *testing.B) {
		if !hasRipgrep() {
			b.Skip("rg is not on PATH")
		}
		for b.Loop() {
			cmd := exec.Command("rg", "--files", "--hidden")
			cmd.Dir = root
			if out, err := cmd.Output(); err != nil || len(out) == 0 {
				b.Fatal(err)
			}
		}
	})
}
