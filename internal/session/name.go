package session

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// FileName returns the name of a new session file: the creation time and
// the session id, so names sort by creation.
func FileName(t time.Time, id string) string {
	return t.UTC().Format("2006-01-02T15-04-05-000Z") + "_" + id + ".jsonl"
}

// Latest returns the path of the most recently created session file in
// dir (by name), or "" when there is none.
func Latest(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	sort.Strings(names)
	return filepath.Join(dir, names[len(names)-1]), nil
}

// CreateIn creates a new session file in dir named by FileName from its
// creation time and id.
func CreateIn(dir, cwd string, opts Options) (*File, error) {
	s := New(cwd, opts)
	t, err := time.Parse(TimeFormat, s.header.Timestamp)
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	if err := s.create(filepath.Join(dir, FileName(t, s.header.ID))); err != nil {
		return nil, err
	}
	return s, nil
}
