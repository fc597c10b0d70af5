package web

import (
	"strings"
	"testing"
)

// FuzzParseDiff feeds arbitrary text to the diff parser: it must not panic,
// must keep at most maxDiffLines lines, and must count every kept + and -
// line.
func FuzzParseDiff(f *testing.F) {
	f.Add(sampleDiff)
	f.Add("diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n")
	f.Add("garbage\n+not in a file\ndiff --git \n")
	f.Fuzz(func(t *testing.T, text string) {
		files, truncated := parseDiff(text)
		n := 0
		for _, fl := range files {
			n += len(fl.Lines)
			add, del := 0, 0
			for _, l := range fl.Lines {
				switch l.Kind {
				case "add":
					add++
				case "del":
					del++
				}
			}
			if !truncated && (add != fl.Added || del != fl.Deleted) {
				t.Fatalf("file %q counts +%d -%d, lines +%d -%d", fl.Name, fl.Added, fl.Deleted, add, del)
			}
		}
		if n > maxDiffLines {
			t.Fatalf("%d lines kept", n)
		}
	})
}

// FuzzParseLine feeds arbitrary transcript lines to the live activity's
// parser, which must not panic on anything a crashed writer leaves behind.
func FuzzParseLine(f *testing.F) {
	f.Add(`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"x"}}]}}`)
	f.Add(`{"type":"session","version":1}`)
	f.Add(`{"type":"compaction","id":"b"}`)
	f.Add(`{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"` + strings.Repeat("x\\n", 30) + `"}]}}`)
	f.Fuzz(func(t *testing.T, line string) {
		v, ok := parseLine([]byte(line))
		if ok && v.Kind == "" {
			t.Fatalf("entry without a kind from %q", line)
		}
	})
}
