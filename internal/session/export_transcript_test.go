package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// storedLines is a board's stored transcript.
type storedLines [][]byte

func (s storedLines) TranscriptLines(_ context.Context, _ string, _ int64, fn func(int64, []byte) error) error {
	for i, l := range s {
		if err := fn(int64(i+1), l); err != nil {
			return err
		}
	}
	return nil
}

// TestWriteTranscript_FileFirstWithoutATornLine: the session file's
// complete lines win, its torn last line left out; without a file, or
// with an empty one, the stored lines are written; with neither, none.
func TestWriteTranscript_FileFirstWithoutATornLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	stored := storedLines{[]byte(`{"stored":1}`)}
	var b bytes.Buffer
	if found, err := WriteTranscript(ctx, &b, path, stored, "t1"); err != nil || !found || b.String() != "{\"stored\":1}\n" {
		t.Errorf("no file: %q, %v, %v", b.String(), found, err)
	}
	if err := os.WriteFile(path, []byte("{\"a\":1}\n{\"torn\""), 0o600); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if found, err := WriteTranscript(ctx, &b, path, stored, "t1"); err != nil || !found || b.String() != "{\"a\":1}\n" {
		t.Errorf("file: %q, %v, %v", b.String(), found, err)
	}
	b.Reset()
	if found, err := WriteTranscript(ctx, &b, "", storedLines{}, "t1"); err != nil || found || b.Len() != 0 {
		t.Errorf("nothing: %q, %v, %v", b.String(), found, err)
	}
}
