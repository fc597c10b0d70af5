package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Warning describes a line of a session file that was skipped or fixed
// while reading.
type Warning struct {
	Line    int    // 1-based line number
	Message string // what was wrong and what was done about it
}

func (w Warning) String() string { return fmt.Sprintf("line %d: %s", w.Line, w.Message) }

// Read parses a session file. It never fails on bad content: a missing or
// malformed header yields a zero Header and a warning, a malformed or
// invalid entry is skipped with a warning, a duplicate id is skipped, and
// an entry whose parent is unknown is re-attached to the entry before it.
// The error is only for a failing reader.
func Read(r io.Reader) (Header, []Entry, []Warning, error) {
	var (
		h     Header
		ents  []Entry
		warns []Warning
		seen  = make(map[string]bool)
	)
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return h, ents, warns, fmt.Errorf("read session: %w", err)
		}
		eof := err != nil
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			if n == 1 {
				if hh, ok := parseHeader(line); ok {
					h = hh
					if eof {
						break
					}
					continue
				}
				warns = append(warns, Warning{n, "missing or malformed session header"})
			}
			e, msg := parseEntry(line, seen)
			if msg != "" {
				warns = append(warns, Warning{n, msg})
			} else {
				if e.ParentID != "" && !seen[e.ParentID] {
					parent := ""
					if len(ents) > 0 {
						parent = ents[len(ents)-1].ID
					}
					warns = append(warns, Warning{n, fmt.Sprintf("entry %s has unknown parent %s; attached to the entry before it", e.ID, e.ParentID)})
					e.ParentID = parent
				}
				seen[e.ID] = true
				ents = append(ents, e)
			}
		}
		if eof {
			break
		}
	}
	return h, ents, warns, nil
}

func parseHeader(line []byte) (Header, bool) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil || h.Type != TypeSession {
		return Header{}, false
	}
	return h, true
}

// parseEntry decodes one entry line; a non-empty message says why it was
// skipped.
func parseEntry(line []byte, seen map[string]bool) (Entry, string) {
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		return Entry{}, "malformed entry skipped: " + shorten(err.Error())
	}
	if e.Type == TypeSession {
		return Entry{}, "extra session header skipped"
	}
	if !e.valid() {
		return Entry{}, fmt.Sprintf("invalid %q entry skipped", e.Type)
	}
	if seen[e.ID] {
		return Entry{}, "duplicate entry id " + e.ID + " skipped"
	}
	return e, ""
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
