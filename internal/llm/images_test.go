package llm

import "testing"

func TestWithoutImages(t *testing.T) {
	text := UserText("plain")
	img := Message{Role: RoleToolResult, ToolCallID: "c", Content: []Part{Text("see"), Image("image/png", "AAAA")}}
	in := []Message{text, img, text}
	out := WithoutImages(in)
	if len(out) != 3 || out[1].Content[1].Type != PartText || out[1].Content[1].Text != ImageOmitted || out[1].ToolCallID != "c" {
		t.Fatalf("out = %+v", out)
	}
	if in[1].Content[1].Type != PartImage {
		t.Error("the input was modified")
	}
	plain := []Message{text, text}
	if got := WithoutImages(plain); &got[0] != &plain[0] {
		t.Error("messages without images must not be copied")
	}
}
