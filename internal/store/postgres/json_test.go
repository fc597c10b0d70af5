package postgres

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestDecodeCriteria_PlainList checks that decodeCriteria's shortcut reads
// every list as encoding/json does, and leaves it the lists it cannot.
func TestDecodeCriteria_PlainList(t *testing.T) {
	lists := [][]string{nil, {}, {""}, {"", ""}, {"it works"}, {"a", "b", "c"}, {"ünïcode ✓", "tabs\tand\nnewlines"},
		{`a "quoted" word`}, {`back\slash`}, {"<html> & co"}, {`","`}, {"\x7f"}, {"bad \xff utf-8"}, {"[", "]"}}
	texts := []string{`["a", "b"]`, ` ["a"]`, `["a"] `, `null`, `[1]`, `["a",1]`, `["a"`, `["]`, `[""`, `["a","]`,
		"[\"raw\ttab\"]", `[]`, `[ ]`, `["a""b"]`}
	for _, l := range lists {
		texts = append(texts, encodeCriteria(l))
	}
	for _, s := range texts {
		got, gotErr := decodeCriteria(s)
		want := []string{}
		wantErr := json.Unmarshal([]byte(s), &want)
		if want == nil {
			want = []string{}
		}
		if (gotErr != nil) != (wantErr != nil) || (wantErr == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("decodeCriteria(%q) = %q, %v; encoding/json: %q, %v", s, got, gotErr, want, wantErr)
		}
		if _, ok := plainList(s); ok && wantErr != nil {
			t.Errorf("plainList(%q) takes a list encoding/json refuses", s)
		}
	}
	if _, ok := plainList(encodeCriteria([]string{"it works", "tests pass"})); !ok {
		t.Error("plainList leaves a plain list to encoding/json")
	}
}
