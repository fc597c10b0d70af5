package session_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixed returns options with a clock that ticks one second per call and
// sequential ids, so files are byte-for-byte reproducible.
func fixed() session.Options {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	return session.Options{
		Now:   func() time.Time { t = t.Add(time.Second); return t },
		NewID: func() string { n++; return fmt.Sprintf("%08x", n) },
	}
}

func assistant(text string, calls ...llm.Part) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Provider: "test", Model: "m", StopReason: llm.StopEnd,
		Usage: &llm.Usage{Input: 10, Output: 5}}
	if text != "" {
		m.Content = append(m.Content, llm.Text(text))
	}
	m.Content = append(m.Content, calls...)
	if len(calls) > 0 {
		m.StopReason = llm.StopToolUse
	}
	return m
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func roles(msgs []llm.Message) string {
	var b []string
	for _, m := range msgs {
		s := string(m.Role)
		if t := m.Text(); t != "" {
			s += ":" + t
		}
		b = append(b, s)
	}
	return strings.Join(b, " | ")
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestFile_WriteFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := must(session.Create(path, "project", fixed()))
	must(s.AppendModelChange("anthropic/claude-sonnet-4-5", llm.ThinkingOff))
	u := must(s.AppendMessage(llm.UserText("list the files"), nil))
	must(s.AppendMessage(assistant("", llm.ToolCall("call_1", "ls", []byte(`{"path": "."}`))), nil))
	must(s.AppendMessage(llm.ToolResultText("call_1", "ls", "a.go\nb.go", false), json.RawMessage(`{"entries":2}`)))
	must(s.AppendMessage(assistant("Two Go files."), nil))
	must(s.AppendLabel(u.ID, "start"))
	must(s.AppendCustom("note", map[string]int{"n": 1}))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := must(os.ReadFile(path))
	golden(t, "format.jsonl", got)
	if bytes.Contains(got, []byte("\r")) {
		t.Error("file contains CR")
	}
}

func TestOpen_Resume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	opts := fixed()
	s := must(session.Create(path, "project", opts))
	must(s.AppendModelChange("openai/gpt-5", llm.ThinkingLow))
	must(s.AppendMessage(llm.UserText("hi"), nil))
	must(s.AppendMessage(assistant("hello"), nil))
	s.Close()

	r := must(session.Open(path, opts))
	defer r.Close()
	if len(r.Warnings()) != 0 {
		t.Fatalf("warnings: %v", r.Warnings())
	}
	c := r.Context()
	if got, want := roles(c.Messages), "user:hi | assistant:hello"; got != want {
		t.Errorf("context = %q, want %q", got, want)
	}
	if c.Model != "openai/gpt-5" || c.Thinking != llm.ThinkingLow {
		t.Errorf("model = %q %q", c.Model, c.Thinking)
	}
	e := must(r.AppendMessage(llm.UserText("again"), nil))
	if e.ParentID != c.EntryIDs[1] {
		t.Errorf("new entry parent = %q, want the old leaf %q", e.ParentID, c.EntryIDs[1])
	}
	if r.Header().Cwd != "project" || r.Header().Version != session.Version {
		t.Errorf("header = %+v", r.Header())
	}
}

func TestOpen_SkipsMalformedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := must(session.Create(path, "p", fixed()))
	a := must(s.AppendMessage(llm.UserText("one"), nil))
	s.Close()
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	fmt.Fprintf(f, "{not json\n")
	fmt.Fprintf(f, `{"type":"message","id":"zz","parentId":"gone","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"orphan"}]}}`+"\n")
	fmt.Fprintf(f, `{"type":"message","id":"yy","parentId":"zz","timestamp":"t","message":{"role":"wizard"}}`+"\n")
	fmt.Fprintf(f, `{"type":"message","id":"xx","parentId":"zz","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"torn`)
	f.Close()

	r := must(session.Open(path, fixed()))
	defer r.Close()
	w := r.Warnings()
	if len(w) != 4 {
		t.Fatalf("warnings = %v, want 4", w)
	}
	for i, want := range []string{"malformed", "unknown parent", "invalid", "malformed"} {
		if !strings.Contains(w[i].Message, want) {
			t.Errorf("warning %d = %q, want %q", i, w[i], want)
		}
	}
	if got, want := roles(r.Context().Messages), "user:one | assistant:orphan"; got != want {
		t.Errorf("context = %q, want %q", got, want)
	}
	if e, _ := r.Entry("zz"); e.ParentID != a.ID {
		t.Errorf("orphan re-attached to %q, want %q", e.ParentID, a.ID)
	}
	// The torn last line must not swallow the next entry.
	must(r.AppendMessage(llm.UserText("after"), nil))
	r.Close()
	r2 := must(session.Open(path, fixed()))
	defer r2.Close()
	if got, want := roles(r2.Context().Messages), "user:one | assistant:orphan | user:after"; got != want {
		t.Errorf("after reopen context = %q, want %q", got, want)
	}
}

func TestOpen_RepairsInterruptedToolCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := must(session.Create(path, "p", fixed()))
	must(s.AppendMessage(llm.UserText("go"), nil))
	must(s.AppendMessage(assistant("", llm.ToolCall("c1", "bash", []byte(`{"command":"make"}`)),
		llm.ToolCall("c2", "read", []byte(`{"path":"x"}`))), nil))
	must(s.AppendMessage(llm.ToolResultText("c1", "bash", "ok", false), nil))
	s.Close() // died while running c2

	r := must(session.Open(path, fixed()))
	c := r.Context()
	last := c.Messages[len(c.Messages)-1]
	if last.Role != llm.RoleToolResult || last.ToolCallID != "c2" || !last.IsError ||
		!strings.Contains(last.Text(), "interrupted") {
		t.Fatalf("last message = %+v, want a synthetic error result for c2", last)
	}
	if c.EntryIDs[len(c.EntryIDs)-1] == "" {
		t.Error("repair was not persisted as an entry")
	}
	r.Close()
	// Persisted: reopening adds nothing more.
	r2 := must(session.Open(path, fixed()))
	defer r2.Close()
	if n := must(r2.Repair()); n != 0 {
		t.Errorf("second repair added %d results", n)
	}
	if len(r2.Context().Messages) != 4 {
		t.Errorf("got %d messages, want 4", len(r2.Context().Messages))
	}
}

func TestContext_AnswersOpenCallsMidPath(t *testing.T) {
	s := session.New("p", fixed())
	must(s.AppendMessage(llm.UserText("go"), nil))
	must(s.AppendMessage(assistant("", llm.ToolCall("c1", "bash", nil)), nil))
	must(s.AppendMessage(llm.UserText("stop that"), nil))
	got := roles(s.Context().Messages)
	if !strings.HasPrefix(got, "user:go | assistant | toolResult:The tool call was interrupted") || !strings.HasSuffix(got, "user:stop that") {
		t.Errorf("context = %q", got)
	}
}

func TestFile_BranchAndFork(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	s := must(session.Create(path, "p", fixed()))
	a := must(s.AppendMessage(llm.UserText("a"), nil))
	must(s.AppendMessage(assistant("b"), nil))
	must(s.AppendMessage(llm.UserText("c"), nil))
	if err := s.Branch(a.ID); err != nil {
		t.Fatal(err)
	}
	must(s.AppendMessage(assistant("d"), nil))
	if got, want := roles(s.Context().Messages), "user:a | assistant:d"; got != want {
		t.Errorf("branch context = %q, want %q", got, want)
	}
	if err := s.Branch("nope"); err == nil {
		t.Error("branch at an unknown id succeeded")
	}
	s.Close()

	r := must(session.Open(path, fixed()))
	defer r.Close()
	if got, want := roles(r.Context().Messages), "user:a | assistant:d"; got != want {
		t.Errorf("reopened context = %q, want %q", got, want)
	}
	if n := len(r.Entries()); n != 4 {
		t.Errorf("file holds %d entries, want 4 (both branches)", n)
	}

	// Fork the other branch into a new file.
	var c session.Entry
	for _, e := range r.Entries() {
		if e.Message != nil && e.Message.Text() == "c" {
			c = e
		}
	}
	fpath := filepath.Join(dir, "fork.jsonl")
	f := must(r.Fork(c.ID, fpath))
	must(f.AppendMessage(assistant("e"), nil))
	f.Close()
	g := must(session.Open(fpath, fixed()))
	defer g.Close()
	if got, want := roles(g.Context().Messages), "user:a | assistant:b | user:c | assistant:e"; got != want {
		t.Errorf("fork context = %q, want %q", got, want)
	}
	if g.Header().ParentSession != path {
		t.Errorf("fork parent = %q, want %q", g.Header().ParentSession, path)
	}
}

func TestContext_Compaction(t *testing.T) {
	s := session.New("p", fixed())
	must(s.AppendMessage(llm.UserText("one"), nil))
	must(s.AppendMessage(assistant("two"), nil))
	kept := must(s.AppendMessage(llm.UserText("three"), nil))
	must(s.AppendMessage(assistant("four"), nil))
	must(s.AppendCompaction(session.Compaction{Summary: "did one and two", FirstKeptEntryID: kept.ID,
		TokensBefore: 1234, ReadFiles: []string{"a.go"}}))
	must(s.AppendMessage(llm.UserText("five"), nil))
	c := s.Context()
	got := roles(c.Messages)
	if !strings.Contains(got, "did one and two") || !strings.HasSuffix(got, "| user:three | assistant:four | user:five") ||
		strings.Contains(got, "user:one") {
		t.Errorf("context = %q", got)
	}
	if c.EntryIDs[0] != "" || c.EntryIDs[1] != kept.ID {
		t.Errorf("entry ids = %v", c.EntryIDs)
	}
	if c.Compaction == nil || c.Compaction.TokensBefore != 1234 {
		t.Errorf("compaction = %+v", c.Compaction)
	}
}

func TestFile_Labels(t *testing.T) {
	s := session.New("p", fixed())
	a := must(s.AppendMessage(llm.UserText("a"), nil))
	b := must(s.AppendMessage(assistant("b"), nil))
	must(s.AppendLabel(a.ID, "first"))
	must(s.AppendLabel(b.ID, "second"))
	must(s.AppendLabel(a.ID, ""))
	if got := s.Labels(); len(got) != 1 || got[b.ID] != "second" {
		t.Errorf("labels = %v", got)
	}
	if _, err := s.AppendLabel("nope", "x"); err == nil {
		t.Error("label of an unknown entry succeeded")
	}
	if got := roles(s.Context().Messages); got != "user:a | assistant:b" {
		t.Errorf("labels leaked into the context: %q", got)
	}
}

func TestLatest(t *testing.T) {
	dir := t.TempDir()
	if p, err := session.Latest(filepath.Join(dir, "none")); p != "" || err != nil {
		t.Fatalf("Latest(missing) = %q, %v", p, err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"bb", "aa", "cc"} {
		name := session.FileName(t0.Add(time.Duration(i)*time.Minute), id)
		os.WriteFile(filepath.Join(dir, name), nil, 0o600)
	}
	p := must(session.Latest(dir))
	if filepath.Base(p) != "2026-01-01T00-02-00-000Z_cc.jsonl" {
		t.Errorf("Latest = %q", p)
	}
}

func TestCreateIn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	s := must(session.CreateIn(dir, "p", fixed()))
	defer s.Close()
	if got := filepath.Base(s.Path()); got != "2026-01-02T03-04-06-000Z_00000001.jsonl" {
		t.Errorf("name = %q", got)
	}
	if p := must(session.Latest(dir)); p != s.Path() {
		t.Errorf("Latest = %q", p)
	}
}

func TestOpen_EmptyFileGetsHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(path, nil, 0o600)
	s := must(session.Open(path, fixed()))
	must(s.AppendMessage(llm.UserText("hi"), nil))
	s.Close()
	r := must(session.Open(path, fixed()))
	defer r.Close()
	if len(r.Warnings()) != 0 || r.Header().Version != session.Version {
		t.Errorf("warnings %v, header %+v", r.Warnings(), r.Header())
	}
}
