package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWatched_ReadsAgainOnlyWhenTheFileChanges: a rewrite (a rename, as
// Save does) is seen; a configuration noted for the file as it is stands
// without a read; a missing file reads as Load reads it, a broken one as
// the zero Config.
func TestWatched_ReadsAgainOnlyWhenTheFileChanges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	var w Watched
	if got := w.Get(path); got.Model != DefaultModel {
		t.Fatalf("missing file: %q, want Load's default", got.Model)
	}
	c := Default()
	c.Model = "openai/gpt-5"
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	if got := w.Get(path); got.Model != "openai/gpt-5" {
		t.Fatalf("after a save: %q", got.Model)
	}
	c.Model = "anthropic/other"
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	if got := w.Get(path); got.Model != "anthropic/other" {
		t.Fatalf("after a second save: %q", got.Model)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	noted := c
	noted.Model = "noted/model"
	w.Note(path, fi, noted)
	if got := w.Get(path); got.Model != "noted/model" {
		t.Errorf("a noted configuration was read again: %q", got.Model)
	}
	if err := os.WriteFile(path+".new", []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if got := w.Get(path); got.Model != "" {
		t.Errorf("a broken file: %q", got.Model)
	}
}

// TestWatched_LoadKeepsTheErrorAndForgets: Load reports a broken file's
// error for as long as it stays broken, and Forget makes it read again
// even when the file looks the same.
func TestWatched_LoadKeepsTheErrorAndForgets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	var w Watched
	for i := range 2 {
		if _, err := w.Load(path); err == nil {
			t.Fatalf("load %d of a broken file: no error", i+1)
		}
	}
	c := Default()
	c.Model = "openai/gpt-5"
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Note(path, fi, c)
	if got, err := w.Load(path); err != nil || got.Model != "openai/gpt-5" {
		t.Fatalf("noted: %q, %v", got.Model, err)
	}
	w.Forget()
	if _, err := w.Load(path); err == nil {
		t.Error("after Forget the file was not read again")
	}
}
