package web

import (
	"bytes"
	"encoding/json"
	"strings"
)

// argView is one argument of a tool call as people read it: strings as
// their text (not JSON with escapes), other values as indented JSON.
type argView struct {
	Key   string // "" for the argument a call is about (a bash command)
	Text  string
	Block bool // shown as a block of text or code, not inline
}

// blockArgs are the arguments shown as blocks whatever their length: a
// command, and the contents of write and edit.
var blockArgs = map[string]bool{"command": true, "content": true, "old_string": true, "new_string": true}

// viewArgs turns a tool call's arguments into what the page shows, in the
// order the model wrote them. Arguments that are not a JSON object are
// shown as they are.
func viewArgs(tool string, raw json.RawMessage) []argView {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return []argView{{Text: plainJSON(raw), Block: true}}
	}
	var out []argView
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return []argView{{Text: string(raw), Block: true}}
		}
		key, _ := k.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return []argView{{Text: string(raw), Block: true}}
		}
		a := argView{Key: key}
		var s string
		if json.Unmarshal(v, &s) == nil {
			a.Text = s
			a.Block = blockArgs[key] || strings.Contains(s, "\n") || len(s) > 120
		} else {
			a.Text = plainJSON(v)
			a.Block = strings.Contains(a.Text, "\n")
		}
		if tool == "bash" && key == "command" {
			a.Key = ""
		}
		out = append(out, a)
	}
	return out
}

// plainJSON indents a JSON value without escaping <, > and &; a value that
// does not parse is returned as it is.
func plainJSON(raw json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return string(raw)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// argsLong reports whether a call's arguments are long enough to show
// collapsed.
func argsLong(args []argView) bool {
	n, lines := 0, 0
	for _, a := range args {
		n += len(a.Text)
		lines += strings.Count(a.Text, "\n") + 1
	}
	return n > longBytes || lines >= longLines
}
