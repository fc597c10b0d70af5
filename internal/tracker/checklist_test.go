package tracker

import (
	"reflect"
	"strings"
	"testing"
)

func TestChecklist(t *testing.T) {
	t.Parallel()
	body := "Intro text\r\n\n" +
		"- [ ] greets the world\n" +
		"* [x] has a test\n" +
		"  + [X] nested item  \n" +
		"1. [ ] numbered\n" +
		"2) [ ]   tabbed\ttext\n" +
		"- [ ]\n" + // no text
		"- [y] not a box\n" +
		"-[ ] no space after the bullet\n" +
		"- [ ]no space after the box\n" +
		"```\n- [ ] inside a fence\n```\n" +
		"~~~~\n- [ ] inside a tilde fence\n~~~\n- [ ] still inside (the fence needs four)\n~~~~\n" +
		"- [ ] after the fences\n" +
		"- plain item\n"
	want := []Criterion{
		{Text: "greets the world"},
		{Text: "has a test", Done: true},
		{Text: "nested item", Done: true},
		{Text: "numbered"},
		{Text: "tabbed\ttext"},
		{Text: "after the fences"},
	}
	if got := Checklist(body); !reflect.DeepEqual(got, want) {
		t.Fatalf("Checklist:\n got %#v\nwant %#v", got, want)
	}
	if got := Checklist(""); got != nil {
		t.Fatalf("empty body: %#v", got)
	}
}

// FuzzChecklist checks what holds for any body: no panic, every item's
// text non-empty, trimmed and on one line, no more items than lines, and
// the items written back as a task list parse to themselves.
func FuzzChecklist(f *testing.F) {
	for _, s := range []string{"- [ ] a\n* [x] b", "```\n- [ ] x\n```", "1. [X] c\r\n", "- [", "~~~\n", "12345678901. [ ] long number"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		items := Checklist(body)
		if len(items) > strings.Count(body, "\n")+strings.Count(body, "\r")+1 {
			t.Fatalf("%d items from %d lines", len(items), strings.Count(body, "\n")+strings.Count(body, "\r")+1)
		}
		var b strings.Builder
		for _, c := range items {
			if c.Text == "" || c.Text != strings.TrimSpace(c.Text) || strings.ContainsAny(c.Text, "\n\r") {
				t.Fatalf("bad item text %q", c.Text)
			}
			box := " "
			if c.Done {
				box = "x"
			}
			b.WriteString("- [" + box + "] " + c.Text + "\n")
		}
		if again := Checklist(b.String()); !reflect.DeepEqual(again, items) {
			t.Fatalf("round trip:\n got %#v\nwant %#v", again, items)
		}
	})
}
