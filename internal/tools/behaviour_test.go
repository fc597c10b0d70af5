package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// liveSleepers returns the live processes running "sleep 100" in dir.
func liveSleepers(dir string) []string {
	var out []string
	real, _ := filepath.EvalSymlinks(dir)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || string(cmd) != "sleep\x00100\x00" {
			continue
		}
		if cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd"); cwd == real {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestBash_TimeoutKillsEverything(t *testing.T) {
	root := fixture(t)
	ts := newSet(t, root, tools.SearchGo)
	start := time.Now()
	r := run(t, ts, "bash", `{"command":"sleep 100 & sleep 100; wait","timeout":1}`)
	if d := time.Since(start); d >= 2*time.Second {
		t.Fatalf("returned after %v", d)
	}
	if !r.IsError || !strings.HasSuffix(r.Text(), "Command timed out after 1 seconds") {
		t.Fatalf("result %+v", r)
	}
	deadline := time.Now().Add(time.Second)
	for len(liveSleepers(root)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := liveSleepers(root); len(left) > 0 {
		t.Fatalf("processes left behind: %v", left)
	}
}

func TestBash_ParentSecretsNeverReachCommands(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-parent-secret")
	t.Setenv("GH_TOKEN", "gh-parent-secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-parent-secret")
	t.Setenv("LD_PRELOAD", "/parent-secret.so")
	root := fixture(t)
	r := run(t, newSet(t, root, tools.SearchGo), "bash", `{"command":"env; echo \"[$ANTHROPIC_API_KEY]\""}`)
	if strings.Contains(r.Text(), "parent-secret") {
		t.Fatalf("a secret reached the command:\n%s", r.Text())
	}
	if !strings.Contains(r.Text(), "PATH=") || !strings.Contains(r.Text(), "[]") {
		t.Fatalf("unexpected environment:\n%s", r.Text())
	}
}

// TestBash_OutputHidesTheHostRoot: the workspace root's host path in a
// command's output reads as the tools name paths, in the result and in
// the full-output file of a long output.
func TestBash_OutputHidesTheHostRoot(t *testing.T) {
	root := fixture(t)
	set := newSet(t, root, tools.SearchGo)
	r := run(t, set, "bash", `{"command":"pwd; echo \"$PWD/src/a.go:3: undefined: x\""}`)
	if r.Text() != ".\nsrc/a.go:3: undefined: x" {
		t.Errorf("output = %q", r.Text())
	}
	r = run(t, set, "bash", `{"command":"for i in $(seq 3000); do echo \"$PWD/f$i\"; done"}`)
	d := r.Details.(tools.BashDetails)
	full, err := os.ReadFile(filepath.Join(root, d.FullOutputPath))
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(root)
	for _, text := range []string{r.Text(), string(full)} {
		if strings.Contains(text, root) || strings.Contains(text, real) || !strings.Contains(text, "\nf2999\n") {
			t.Fatalf("long output shows the host root or lost lines:\n%.300s", text)
		}
	}
}

func TestBash_FullOutputFileIgnoredByGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	ts := newSet(t, root, tools.SearchGo)
	r := run(t, ts, "bash", `{"command":"seq 1 20000"}`)
	d := r.Details.(tools.BashDetails)
	if !d.Truncated || d.FullOutputPath != ".bonsai-tmp/bash-test0001.log" {
		t.Fatalf("details %+v", d)
	}
	full, err := os.ReadFile(filepath.Join(root, d.FullOutputPath))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := exec.Command("seq", "1", "20000").Output()
	if string(full) != string(want) {
		t.Fatalf("full output file has %d bytes, want %d", len(full), len(want))
	}
	if !strings.HasSuffix(r.Text(), "[Showing lines 18001-20000 of 20000. Full output: .bonsai-tmp/bash-test0001.log]") {
		t.Fatalf("notice: %q", r.Text()[len(r.Text())-120:])
	}
	status, err := exec.Command("git", "-C", root, "status", "--porcelain", "--ignored=no").Output()
	if err != nil || len(status) != 0 {
		t.Fatalf("git status shows %q (%v)", status, err)
	}
	exclude, _ := os.ReadFile(filepath.Join(root, ".git", "info", "exclude"))
	if !strings.Contains(string(exclude), "/.bonsai-tmp/") {
		t.Fatalf("exclude file:\n%s", exclude)
	}
	// grep and find never see the saved output.
	for _, b := range backends {
		if b.search == tools.SearchRipgrep && !hasRipgrep() {
			continue
		}
		r := run(t, newSet(t, root, b.search), "grep", `{"pattern":"19999"}`)
		if r.Text() != "No matches found" {
			t.Errorf("%s: grep found the saved output: %s", b.name, r.Text())
		}
	}
}

func TestBash_StreamsUpdates(t *testing.T) {
	root := fixture(t)
	bash := tools.Lookup(newSet(t, root, tools.SearchGo), "bash")
	var mu sync.Mutex
	var updates []string
	r, err := bash.Run(context.Background(), json.RawMessage(`{"command":"for i in 1 2 3; do echo $i; sleep 0.25; done"}`),
		func(p tool.Result) {
			mu.Lock()
			defer mu.Unlock()
			updates = append(updates, p.Text())
		})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "1\n2\n3" {
		t.Fatalf("final %q", r.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) < 2 || updates[0] != "1" {
		t.Fatalf("updates %q", updates)
	}
}

func TestBash_AbortKeepsPartialOutput(t *testing.T) {
	root := fixture(t)
	bash := tools.Lookup(newSet(t, root, tools.SearchGo), "bash")
	// Cancelled once the output is seen, however slow the machine.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := bash.Run(ctx, json.RawMessage(`{"command":"echo partial; sleep 100"}`), func(p tool.Result) {
		if strings.Contains(p.Text(), "partial") {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError || r.Text() != "partial\n\nCommand aborted" {
		t.Fatalf("result %+v", r)
	}
}

func TestEdit_ConcurrentEditsSerialise(t *testing.T) {
	root := fixture(t)
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "item-%d\n", i)
	}
	writeTree(t, root, map[string]string{"list.txt": b.String()})
	ts := newSet(t, root, tools.SearchGo)
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := fmt.Sprintf(`{"path":"./list.txt","old_string":"item-%d\n","new_string":"ITEM-%d\n"}`, i, i)
			if r := run(t, ts, "edit", args); r.IsError {
				t.Errorf("edit %d: %s", i, r.Text())
			}
		}()
	}
	wg.Wait()
	got, _ := os.ReadFile(filepath.Join(root, "list.txt"))
	if strings.Contains(string(got), "item-") {
		t.Fatalf("edits were lost:\n%s", got)
	}
}

func TestWrite_KeepsModeAndLeavesNoTemp(t *testing.T) {
	root := fixture(t)
	ts := newSet(t, root, tools.SearchGo)
	if r := run(t, ts, "write", `{"path":"main.go","content":"package main\n"}`); r.IsError {
		t.Fatal(r.Text())
	}
	fi, _ := os.Stat(filepath.Join(root, "main.go"))
	if fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", fi.Mode())
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

// validate checks args with the tool's own validator, which tool.Check
// prefers to the schema.
func validate(t tool.Tool, args json.RawMessage) error {
	return t.(tool.Validator).Validate(args)
}

func TestValidate(t *testing.T) {
	ts := tools.New(nil, tools.Options{})
	err := validate(tools.Lookup(ts, "grep"), json.RawMessage(`{"pattern":1,"limit":-1}`))
	var ve *tools.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v", err)
	}
	want := "invalid arguments for grep: limit: must be at least 1, got -1; pattern: must be a string, got a number (1)"
	if err.Error() != want {
		t.Fatalf("got  %s\nwant %s", err, want)
	}
	if err := validate(tools.Lookup(ts, "read"), json.RawMessage(`{"path":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := validate(tools.Lookup(ts, "read"), json.RawMessage(`not json`)); !errors.As(err, &ve) {
		t.Fatalf("bad JSON: %v", err)
	}
	// An argument a tool does not take is refused, not ignored: a model
	// that sends "lines" for "limit" learns the names instead of reading
	// the whole file unawares.
	for _, tl := range ts {
		err := validate(tl, json.RawMessage(`{"lines":5}`))
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), `unknown argument "lines" (the arguments are `) {
			t.Errorf("%s with an unknown argument: %v", tl.Name(), err)
		}
	}
	want = `invalid arguments for read: unknown argument "lines" (the arguments are limit, offset, path)`
	if err := validate(tools.Lookup(ts, "read"), json.RawMessage(`{"path":"a","lines":5}`)); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestTools_SchemaSize keeps what is re-sent to the model on every turn
// small: names, descriptions and schemas of all seven tools ≤ 4 KB.
func TestTools_SchemaSize(t *testing.T) {
	type spec struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	var specs []spec
	for _, tl := range tools.New(nil, tools.Options{}) {
		specs = append(specs, spec{tl.Name(), tl.Description(), tl.Schema()})
	}
	b, err := json.Marshal(specs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("7 tool specs: %d bytes of JSON", len(b))
	fmt.Printf("tool schemas + descriptions: %d bytes\n", len(b))
	if len(specs) != 7 || len(b) > 4096 {
		t.Fatalf("%d tools, %d bytes; want 7 tools in at most 4096 bytes", len(specs), len(b))
	}
}

func TestTools_PanicBecomesErrorResult(t *testing.T) {
	// A nil executor makes every file tool panic inside Run; tool.Call,
	// which every host uses, recovers it.
	r := tool.Call(context.Background(), tools.Lookup(tools.New(nil, tools.Options{}), "ls"), json.RawMessage(`{}`), nil)
	if !r.IsError || !strings.HasPrefix(r.Text(), "Tool ls failed: internal error:") {
		t.Fatalf("r=%+v", r)
	}
}
