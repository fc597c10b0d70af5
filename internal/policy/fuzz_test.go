package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzJudge checks that Judge never panics, always explains itself, and
// never allows what the shell parser refuses.
func FuzzJudge(f *testing.F) {
	for _, c := range judgeCases {
		f.Add(c.cmd)
	}
	for _, c := range escapeCases {
		f.Add(c.cmd)
	}
	f.Add("echo 'x")
	f.Add("$(")
	f.Add("a <<EOF\n$(sudo id)\nEOF")
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, cfg := range []Config{auto, askM, readOnlyM, {}} {
			d := Judge(cmd, cfg)
			if d.Rule == "internal-error" {
				t.Fatalf("Judge(%q) panicked: %s", cmd, d)
			}
			if d.Rule == "" || d.Reason == "" {
				t.Fatalf("Judge(%q) = %#v: no rule or reason", cmd, d)
			}
			if d.Verdict < Allow || d.Verdict > Deny {
				t.Fatalf("Judge(%q): verdict %d", cmd, d.Verdict)
			}
			_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
			if err != nil && d.Verdict == Allow {
				t.Fatalf("Judge(%q) = %s, but the command does not parse: %v", cmd, d, err)
			}
		}
	})
}
