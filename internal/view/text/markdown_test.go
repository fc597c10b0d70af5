package text

import "testing"

// TestPlain checks that Markdown reads as plain text in a terminal:
// no emphasis markers, code kept as written.
func TestPlain(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"emphasis", "Run ended **error** after _3s_, *really*.", "Run ended error after 3s, really."},
		{"line breaks kept", "one\ntwo  \nthree", "one\ntwo\nthree"},
		{"heading", "# Verification\n\nAll **pass**.", "Verification\n\nAll pass."},
		{"code span", "run `go test **./...**` now", "run `go test **./...**` now"},
		{"code block", "Output:\n\n```\nfunc **x**() {\n\n}\n```", "Output:\n\n    func **x**() {\n\n    }"},
		{"lists", "1. **First**\n   evidence\n2. Second\n\n- a\n- b", "1. First\n   evidence\n2. Second\n\n- a\n- b"},
		{"quote", "The agent's last words:\n\n> done **now**\n> bye", "The agent's last words:\n\n> done now\n> bye"},
		{"link", "see [the docs](https://x.test/d) or <https://y.test>", "see the docs (https://x.test/d) or https://y.test"},
		{"escapes and entities", `2 \* 3 &amp; 4 &lt; 5`, "2 * 3 & 4 < 5"},
		{"plain", "Users want to see progress.", "Users want to see progress."},
		{"html kept", "a <b>b</b>\n\n<div>\nx\n</div>", "a <b>b</b>\n\n<div>\nx\n</div>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Plain(tt.in); got != tt.want {
				t.Errorf("Plain(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}
