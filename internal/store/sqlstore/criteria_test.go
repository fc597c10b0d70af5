package sqlstore

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecodeCriteria(t *testing.T) {
	t.Parallel()
	for _, cs := range [][]string{
		{}, {""}, {"one"}, {"a", "b", "c"},
		{`say "hi"`, `back\slash`, "tab\there", "<html> & co", "line\u2028sep", "ünïcödé ✓"},
		{"", "", ""},
	} {
		enc := encodeCriteria(cs)
		got, err := decodeCriteria(enc)
		if err != nil || !reflect.DeepEqual(got, cs) {
			t.Errorf("decodeCriteria(%s) = %#v, %v; want %#v", enc, got, err, cs)
		}
	}
	for _, in := range []string{`[ "a" ]`, "[\n\"a\",\"b\"\n]", `null`} {
		want := []string{}
		json.Unmarshal([]byte(in), &want)
		if want == nil {
			want = []string{}
		}
		got, err := decodeCriteria(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeCriteria(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `[`, `["a"`, `["a",]`, `[1]`, `{}`, `["a" "b"]`, `["a",`} {
		if got, err := decodeCriteria(bad); err == nil {
			t.Errorf("decodeCriteria(%q) = %#v, want an error", bad, got)
		}
	}
}

// FuzzDecodeCriteria checks that the fast path agrees with json.Unmarshal
// on every input it accepts.
func FuzzDecodeCriteria(f *testing.F) {
	for _, s := range []string{`[]`, `["a"]`, `["a","b"]`, `["a\"b"]`, `["",""]`, `["a",]`, "[\"\x01\"]", `[ "a" ]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := splitCriteria(s)
		if !ok {
			return
		}
		var want []string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("fast path accepted %q, which json.Unmarshal rejects: %v", s, err)
		}
		if want == nil {
			want = []string{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast path decoded %q as %#v, json.Unmarshal as %#v", s, got, want)
		}
	})
}
