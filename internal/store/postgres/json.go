package postgres

import (
	"encoding/json"
	"fmt"
)

// encodeList stores a list of strings as a JSON array; nil is [].
func encodeList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l) // strings always marshal
	return string(b)
}

// decodeList reads what encodeList wrote; [] reads back as nil.
func decodeList(s string) ([]string, error) {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("list column: %w", err)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, nil
}

// decodeCriteria decodes a ticket's acceptance criteria, never nil.
func decodeCriteria(s string) ([]string, error) {
	out := []string{}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// encodeCriteria encodes criteria for storage; nil is stored as [].
func encodeCriteria(cs []string) string {
	if cs == nil {
		cs = []string{}
	}
	b, _ := json.Marshal(cs)
	return string(b)
}
