package tools

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEdit_Forgiving checks the edit matcher: an exact match replaces
// exactly, a forgiving match covers text that normalizes to old_string,
// the diff never panics, and CRLF files stay CRLF.
func FuzzEdit_Forgiving(f *testing.F) {
	f.Add("say \u201chello\u201d \u2014 ok   \nnext\n", "say \"hello\" - ok\nnext", "x", false)
	f.Add("a\r\nb\r\nc\r\n", "b\nc", "B\nC", false)
	f.Add("x = 1\nx = 1\n", "x = 1", "y", true)
	f.Add("\ufefffirst\nsecond", "second", "2", false)
	f.Add("tab\t\t\nend", "tab\nend", "", false)
	f.Fuzz(func(t *testing.T, content, old, repl string, all bool) {
		if !utf8.ValidString(content) || !utf8.ValidString(old) || !utf8.ValidString(repl) {
			return
		}
		out, res := applyEdit("f.txt", content, editArgs{Path: "f.txt", OldString: old, NewString: repl, ReplaceAll: all})
		if res.IsError || old == "" {
			return
		}
		body := strings.TrimPrefix(content, "\ufeff")
		crlf := strings.Contains(body, "\r\n") && strings.Count(body, "\r\n") == strings.Count(body, "\n")
		if crlf && strings.Count(out, "\n") != strings.Count(out, "\r\n") {
			t.Fatalf("CRLF file lost its line endings: %q", out)
		}
		if strings.HasPrefix(content, "\ufeff") != strings.HasPrefix(out, "\ufeff") {
			t.Fatalf("BOM changed: %q -> %q", content, out)
		}
		if !crlf && !res.Details.(EditDetails).Forgiving && !all {
			if want := strings.Replace(content, old, repl, 1); out != want {
				t.Fatalf("exact edit gave %q, want %q", out, want)
			}
		}
		if crlf {
			body = strings.ReplaceAll(body, "\r\n", "\n")
		}
		for _, r := range findForgiving(body, old) {
			if got, want := normalize(body[r.start:r.end]).s, normalize(old).s; got != want {
				t.Fatalf("forgiving region %q normalizes to %q, want %q", body[r.start:r.end], got, want)
			}
		}
	})
}

// FuzzTruncate checks the output limits with small ones (5 lines, 64
// bytes) so that short inputs reach them: read's head and bash's tail never
// exceed them, keep whole lines from the right end, and say so.
func FuzzTruncate(f *testing.F) {
	lim := limits{lines: 5, bytes: 64}
	f.Add("1\n2\n3\n4\n5\n6\n7\n", 1)
	f.Add(strings.Repeat("w", 100)+"\n", 1)
	f.Add("a\nb\n"+strings.Repeat("é", 40), 2)
	f.Add("x\r\ny\r\n", 1)
	f.Add("", 1)
	f.Fuzz(func(t *testing.T, s string, offset int) {
		lines := splitLines(s)
		tl := tailOf(lines, lim)
		if tl.partial {
			if len(tl.last) > lim.bytes || !strings.HasSuffix(lines[len(lines)-1], tl.last) {
				t.Fatalf("partial tail %q is not a suffix within the limit", tl.last)
			}
		} else {
			kept := lines[tl.first:]
			size := 0
			for _, l := range kept {
				size += len(l) + 1
			}
			if len(kept) > lim.lines || size > lim.bytes {
				t.Fatalf("tail kept %d lines, %d bytes", len(kept), size)
			}
			if len(lines) > 0 && len(kept) == 0 {
				t.Fatal("tail kept nothing")
			}
		}
		o := output{lim: lim}
		for i := 0; i < len(s); i += 7 {
			o.Write([]byte(s[i:min(i+7, len(s))]))
		}
		v := o.visible()
		if len(v.text) > lim.bytes || strings.Count(v.text, "\n") >= lim.lines {
			t.Fatalf("bash view %q is over the limits", v.text)
		}
		if !strings.HasSuffix(strings.TrimSuffix(s, "\n"), v.text) {
			t.Fatalf("bash view %q is not the end of %q", v.text, s)
		}
		if v.truncated != (v.first > 1 || v.partial) || v.last != v.total {
			t.Fatalf("bash view positions %+v", v)
		}
		if len(lines) == 0 || offset < 1 || offset > len(lines) {
			return
		}
		r := (&readTool{}).format("f", lines, offset, len(lines), lim)
		text := r.Text()
		body, _, _ := strings.Cut(text, "\n\n[Showing")
		d := r.Details.(ReadDetails)
		if strings.HasPrefix(text, "[Line ") {
			if !strings.Contains(text, "sed -n") {
				t.Fatalf("long line notice without sed: %q", text)
			}
			return
		}
		if len(body) > lim.bytes || strings.Count(body, "\n") >= lim.lines {
			t.Fatalf("read shows %q", body)
		}
		if d.EndLine < d.TotalLines && !strings.Contains(text, fmt.Sprintf("Use offset=%d to continue.]", d.EndLine+1)) {
			t.Fatalf("truncated read without a notice: %q", text)
		}
	})
}
