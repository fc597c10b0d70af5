package web

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Every line the web UI reads from a transcript or a live file goes
// through a session.LineReader, so that no buffer grows with the file: of
// a line longer than session.MaxLineBytes only its head and its size are
// kept, and the pages show a placeholder for it.

// entryHead is what the start of an oversized transcript line tells.
type entryHead struct {
	Type, ID, Timestamp, Role string
}

// parseHead reads the fields of an entry that come before its message's
// content from the start of its line; fields past the cut stay empty.
func parseHead(head []byte) entryHead {
	var h entryHead
	d := json.NewDecoder(bytes.NewReader(head))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return h
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return h
		}
		key, _ := k.(string)
		if key == "message" {
			if t, err := d.Token(); err != nil || t != json.Delim('{') {
				return h
			}
			if k, err := d.Token(); err == nil && k == "role" {
				if v, err := d.Token(); err == nil {
					h.Role, _ = v.(string)
				}
			}
			return h
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			return h
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			continue
		}
		switch key {
		case "type":
			h.Type = s
		case "id":
			h.ID = s
		case "timestamp":
			h.Timestamp = s
		}
	}
	return h
}

// megabytes formats a size for people: "19.6 MB".
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
