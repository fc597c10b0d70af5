package llm_test

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestAttachmentImages_KeptByHash(t *testing.T) {
	t.Parallel()
	m := llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.Text("see"),
		llm.AttachmentImage("image/png", "shot.png", "ab12", "AAAA"), llm.Image("image/png", "BBBB")}}
	stored := llm.WithoutAttachmentData(m)
	if stored.Content[1].Data != "" || stored.Content[1].SHA256 != "ab12" || stored.Content[1].Path != "shot.png" {
		t.Errorf("stored attachment image = %+v, want its name and hash without bytes", stored.Content[1])
	}
	if stored.Content[2].Data != "BBBB" {
		t.Error("an image read by a tool lost its bytes")
	}
	if m.Content[1].Data != "AAAA" {
		t.Error("the message in memory was changed")
	}
	back := llm.ImagesNotLoaded([]llm.Message{stored})
	if got := back[0].Content[1]; got.Type != llm.PartText || got.Text != llm.ImageNotLoaded(stored.Content[1]) {
		t.Errorf("unloaded image = %+v, want a notice naming it", got)
	}
	if back[0].Content[2].Type != llm.PartImage {
		t.Error("a loaded image was replaced")
	}
	if plain := (llm.Message{Content: []llm.Part{llm.Text("x")}}); len(llm.WithoutAttachmentData(plain).Content) != 1 {
		t.Error("a message without images changed")
	}
}
