package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var transcriptCases = []testCase{
	{"AppendAndRead", testTranscriptAppend},
	{"Conflict", testTranscriptConflict},
	{"ConcurrentWriters", testTranscriptConcurrent},
	{"BadInput", testTranscriptBadInput},
	{"Live", testLive},
}

// storedLines reads a ticket's transcript from line from on.
func storedLines(t *testing.T, s store.Store, ticketID string, from int64) []string {
	t.Helper()
	var out []string
	err := s.TranscriptLines(t.Context(), ticketID, from, func(n int64, line []byte) error {
		if want := from + int64(len(out)); n != want {
			t.Errorf("line numbered %d, want %d", n, want)
		}
		out = append(out, string(line))
		return nil
	})
	if err != nil {
		t.Fatalf("TranscriptLines: %v", err)
	}
	return out
}

func lines(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// testTranscriptAppend: lines come back in order, byte for byte (non-ASCII,
// escapes and long lines included), per ticket, from any line on; the size
// is the file they make; nothing is an event.
func testTranscriptAppend(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	one := ticketIn(t, s, "demo", board.InProgress)
	two := ticketIn(t, s, "demo", board.Research)
	before := lastEventID(t, s)

	if n, size, err := s.TranscriptSize(ctx, one.ID); err != nil || n != 0 || size != 0 {
		t.Errorf("TranscriptSize of none = %d, %d, %v", n, size, err)
	}
	if got := storedLines(t, s, one.ID, 0); len(got) != 0 {
		t.Errorf("lines of none = %q", got)
	}
	long := `{"type":"message","text":"` + strings.Repeat("ü", 100_000) + `"}`
	want := []string{
		`{"type":"session","version":1,"id":"a1b2c3d4"}`,
		`{"type":"message","id":"1","text":"héllo \u2028 \"quoted\" \\n 🌱"}`,
		long,
	}
	if err := s.AppendTranscript(ctx, one.ID, 0, lines(want[:1]...)); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendTranscript(ctx, one.ID, 1, lines(want[1:]...)); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendTranscript(ctx, two.ID, 0, lines(`{"other":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := storedLines(t, s, one.ID, 0); !slices.Equal(got, want) {
		t.Errorf("lines differ: got %d lines, want %d", len(got), len(want))
	}
	if got := storedLines(t, s, one.ID, 2); !slices.Equal(got, want[2:]) {
		t.Errorf("lines from 2: got %d lines", len(got))
	}
	if got := storedLines(t, s, two.ID, 0); !slices.Equal(got, []string{`{"other":true}`}) {
		t.Errorf("other ticket's lines = %q", got)
	}
	var size int64
	for _, l := range want {
		size += int64(len(l)) + 1
	}
	if n, got, err := s.TranscriptSize(ctx, one.ID); err != nil || n != 3 || got != size {
		t.Errorf("TranscriptSize = %d, %d, %v; want 3, %d", n, got, err, size)
	}
	// An empty append at the end writes nothing and is no error.
	if err := s.AppendTranscript(ctx, one.ID, 3, nil); err != nil {
		t.Errorf("empty append: %v", err)
	}
	// fn's error stops the walk and comes back.
	stop := errors.New("stop")
	calls := 0
	err := s.TranscriptLines(ctx, one.ID, 0, func(int64, []byte) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("walk stopped by fn: err %v after %d calls", err, calls)
	}
	if after := lastEventID(t, s); after != before {
		t.Errorf("transcript writes appended events (%d → %d)", before, after)
	}
}

// testTranscriptConflict: an append that does not start at the end
// writes nothing.
func testTranscriptConflict(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	if err := s.AppendTranscript(ctx, tk.ID, 0, lines(`{"n":0}`, `{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	for _, first := range []int64{0, 1, 3} {
		err := s.AppendTranscript(ctx, tk.ID, first, lines(`{"stale":true}`, `{"stale":2}`))
		wantCode(t, err, board.ECONFLICT, "another writer")
	}
	if got := storedLines(t, s, tk.ID, 0); !slices.Equal(got, []string{`{"n":0}`, `{"n":1}`}) {
		t.Errorf("lines after refused appends = %q", got)
	}
}

// testTranscriptConcurrent: writers racing from the same line number: one
// wins each number, the others are told, and no line is lost or doubled.
func testTranscriptConcurrent(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	const writers, rounds = 4, 10
	var mu sync.Mutex
	won := map[int64]string{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				n, _, err := s.TranscriptSize(ctx, tk.ID)
				if err != nil {
					t.Error(err)
					return
				}
				line := fmt.Sprintf(`{"writer":%d,"round":%d}`, w, r)
				err = s.AppendTranscript(ctx, tk.ID, n, lines(line))
				switch board.ErrorCode(err) {
				case "":
					mu.Lock()
					if prev, ok := won[n]; ok {
						t.Errorf("line %d written twice: %s and %s", n, prev, line)
					}
					won[n] = line
					mu.Unlock()
				case board.ECONFLICT:
				default:
					t.Errorf("append: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	got := storedLines(t, s, tk.ID, 0)
	if len(got) != len(won) {
		t.Fatalf("%d lines stored, %d appends won", len(got), len(won))
	}
	for n, l := range got {
		if won[int64(n)] != l {
			t.Errorf("line %d = %s, the winning append wrote %s", n, l, won[int64(n)])
		}
	}
}

// testTranscriptBadInput: lines that would not make a session file, and
// unknown tickets, are refused with nothing written.
func testTranscriptBadInput(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	for _, bad := range [][][]byte{
		lines(`{"ok":1}`, ``),
		lines(`{"a":1}` + "\n" + `{"b":2}`),
		lines(`{"a":1}` + "\r"),
		lines(`{"a":`),
		lines("{\"a\":\"\x00\"}"),
		{[]byte("{\"a\":\"\xff\"}")},
	} {
		wantCode(t, s.AppendTranscript(ctx, tk.ID, 0, bad), board.EINVALID, "transcript line")
	}
	if n, _, err := s.TranscriptSize(ctx, tk.ID); err != nil || n != 0 {
		t.Errorf("after bad input: %d lines, %v", n, err)
	}
	wantCode(t, s.AppendTranscript(ctx, "no-such-ticket", 0, lines(`{}`)), board.ENOTFOUND, "")
	wantCode(t, s.WriteLive(ctx, "no-such-ticket", []byte("{}\n"), true), board.ENOTFOUND, "")
	wantCode(t, s.WriteLive(ctx, tk.ID, []byte("\xff\xfe"), true), board.EINVALID, "UTF-8")
	wantCode(t, s.WriteLive(ctx, tk.ID, []byte("a\x00b"), true), board.EINVALID, "UTF-8")
}

// testLive: a fresh write replaces the live file, others append, each
// bumps the version; tickets keep their own.
func testLive(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	one := ticketIn(t, s, "demo", board.InProgress)
	two := ticketIn(t, s, "demo", board.Research)
	live := func(id string) (string, int64) {
		t.Helper()
		data, v, err := s.Live(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), v
	}
	if data, v := live(one.ID); data != "" || v != 0 {
		t.Errorf("Live of none = %q, %d", data, v)
	}
	steps := []struct {
		data  string
		fresh bool
		want  string
	}{
		{"{\"type\":\"message\",\"at\":10}\n", true, "{\"type\":\"message\",\"at\":10}\n"},
		{"{\"d\":\"héllo\"}\n", false, "{\"type\":\"message\",\"at\":10}\n{\"d\":\"héllo\"}\n"},
		{"{\"type\":\"message\",\"at\":99}\n", true, "{\"type\":\"message\",\"at\":99}\n"},
		{"", false, "{\"type\":\"message\",\"at\":99}\n"},
	}
	for i, st := range steps {
		if err := s.WriteLive(ctx, one.ID, []byte(st.data), st.fresh); err != nil {
			t.Fatal(err)
		}
		if data, v := live(one.ID); data != st.want || v != int64(i+1) {
			t.Errorf("after write %d: %q version %d, want %q version %d", i, data, v, st.want, i+1)
		}
	}
	if data, v := live(two.ID); data != "" || v != 0 {
		t.Errorf("other ticket's live file = %q, %d", data, v)
	}
}
