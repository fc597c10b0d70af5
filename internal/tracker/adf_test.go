package tracker

import (
	"encoding/json"
	"strings"
	"testing"
)

// A Jira description as Jira Cloud's REST v3 writes it.
const jiraDescription = `{"type":"doc","version":1,"content":[
 {"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":"Goal"}]},
 {"type":"paragraph","content":[{"type":"text","text":"Say "},{"type":"text","text":"hello","marks":[{"type":"strong"}]},
   {"type":"text","text":" to "},{"type":"mention","attrs":{"id":"acc-1","text":"@Carol"}},{"type":"hardBreak"},
   {"type":"text","text":"see "},{"type":"text","text":"the docs","marks":[{"type":"link","attrs":{"href":"https://example.com/d"}}]},
   {"type":"text","text":" and "},{"type":"text","text":"greet()","marks":[{"type":"code"}]}]},
 {"type":"taskList","attrs":{"localId":"t"},"content":[
   {"type":"taskItem","attrs":{"localId":"1","state":"TODO"},"content":[{"type":"text","text":"prints hello"}]},
   {"type":"taskItem","attrs":{"localId":"2","state":"DONE"},"content":[{"type":"text","text":"has a test"}]}]},
 {"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"one"}]},
   {"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"nested"}]}]}]}]}]},
 {"type":"orderedList","attrs":{"order":3},"content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"third"}]}]}]},
 {"type":"codeBlock","attrs":{"language":"go"},"content":[{"type":"text","text":"fmt.Println(\"hi\")\nreturn"}]},
 {"type":"blockquote","content":[{"type":"paragraph","content":[{"type":"text","text":"quoted"}]}]},
 {"type":"rule"},
 {"type":"panel","attrs":{"panelType":"info"},"content":[{"type":"paragraph","content":[{"type":"text","text":"in a panel "},{"type":"emoji","attrs":{"shortName":":smile:","text":"😄"}}]}]}
]}`

func TestADFToMarkdown(t *testing.T) {
	t.Parallel()
	var doc ADF
	if err := json.Unmarshal([]byte(jiraDescription), &doc); err != nil {
		t.Fatal(err)
	}
	want := "## Goal\n\n" +
		"Say **hello** to @Carol\nsee [the docs](https://example.com/d) and `greet()`\n\n" +
		"- [ ] prints hello\n- [x] has a test\n\n" +
		"- one\n  - nested\n\n" +
		"3. third\n\n" +
		"```go\nfmt.Println(\"hi\")\nreturn\n```\n\n" +
		"> quoted\n\n" +
		"---\n\n" +
		"in a panel 😄"
	if got := ADFToMarkdown(doc); got != want {
		t.Fatalf("markdown:\n%s\n--- want ---\n%s", got, want)
	}
	if cs := Checklist(ADFToMarkdown(doc)); len(cs) != 2 || cs[0].Text != "prints hello" || !cs[1].Done {
		t.Fatalf("checklist from a Jira description: %+v", cs)
	}
}

func TestMarkdownToADF(t *testing.T) {
	t.Parallel()
	md := "**Bonsai** asks:\nwhich *greeting*?\n\n- [ ] hello\n- [x] hi\n\n1. first\n2. second\n\n```sh\nmake test\n```\n\n> a [link](https://example.com) and `code`"
	doc := MarkdownToADF(md)
	b, _ := json.Marshal(doc)
	for _, want := range []string{`"type":"doc"`, `"version":1`, `{"type":"text","text":"Bonsai","marks":[{"type":"strong"}]}`, `{"type":"hardBreak"}`,
		`"type":"taskItem","attrs":{"localId":"2","state":"DONE"}`, `"type":"orderedList","attrs":{"order":1}`,
		`"type":"codeBlock","attrs":{"language":"sh"},"content":[{"type":"text","text":"make test"}]`,
		`"marks":[{"type":"link","attrs":{"href":"https://example.com"}}]`, `"marks":[{"type":"code"}]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("ADF lacks %s:\n%s", want, b)
		}
	}
	if back := ADFToMarkdown(doc); back != md {
		t.Fatalf("round trip:\n%s\n--- want ---\n%s", back, md)
	}
}

// FuzzMarkdownADF checks, for any text: the document holds no empty
// text node and no line break inside a text node outside code (Jira
// refuses the first), and Markdown written from it reads back to the
// same Markdown.
func FuzzMarkdownADF(f *testing.F) {
	for _, s := range []string{"a **b** *c* `d` [e](f)", "- [ ] x\n- y\n1. z", "```\ncode\n```", "> q\n> - l", "# h\n---", "***", "- [ ]", "[a](b c)", "\v\n- a"} { // "\v": a blank line to one trim, not to another, once looped forever
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		doc := MarkdownToADF(md)
		checkADF(t, doc, false)
		once := ADFToMarkdown(doc)
		if twice := ADFToMarkdown(MarkdownToADF(once)); twice != once {
			t.Fatalf("not stable:\n%q\n%q", once, twice)
		}
	})
}

func checkADF(t *testing.T, n ADF, inCode bool) {
	t.Helper()
	if n.Type == "text" && (n.Text == "" || !inCode && strings.Contains(n.Text, "\n")) {
		t.Fatalf("bad text node %+v", n)
	}
	for _, c := range n.Content {
		checkADF(t, c, inCode || n.Type == "codeBlock")
	}
}
