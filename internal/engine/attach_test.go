package engine_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
)

// testPNG is a small picture, different for each seed.
func testPNG(t *testing.T, seed uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range 16 {
		img.Set(i%4, i/4, color.RGBA{R: seed, G: uint8(i * 16), B: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// attached is a ticket file; read, when set, is how its bytes are read
// (the heartbeat's reader of a file the brief does not carry).
func attached(name, media string, data []byte, read bool) agentjob.Attached {
	a := agentjob.Attached{Attachment: board.Attachment{ID: name, Name: name, MediaType: media,
		Size: int64(len(data)), SHA256: fmt.Sprintf("%x", sha256.Sum256(data))}}
	if read {
		a.Read = func(context.Context) ([]byte, error) { return data, nil }
	} else {
		a.Data = data
	}
	return a
}

// engineCase is one engine CLI run against the fake provider: its shell
// tool's call of a command.
type engineCase struct {
	e              engine.Engine
	program, model string
	env            func(srv *llmtest.Server) map[string]string
	shell          func(command string) llmtest.ServerTurn
}

func engineCases() []engineCase {
	anthropic := func(srv *llmtest.Server) map[string]string {
		return map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "sk-test"}
	}
	return []engineCase{
		{e: engine.Claude{}, program: "claude", model: "anthropic/claude-sonnet-4-5", env: anthropic,
			shell: func(c string) llmtest.ServerTurn { return bash("toolu_1", c) }},
		{e: engine.Codex{}, program: "codex", model: "openai/gpt-5-codex",
			env: func(srv *llmtest.Server) map[string]string {
				return map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "sk-test"}
			},
			shell: func(c string) llmtest.ServerTurn {
				args, _ := json.Marshal(map[string]string{"cmd": c})
				return call("call_1", "exec_command", string(args))
			}},
		{e: engine.OpenCode{}, program: "opencode", model: "anthropic/claude-sonnet-4-5", env: anthropic,
			shell: func(c string) llmtest.ServerTurn {
				args, _ := json.Marshal(map[string]string{"command": c, "description": "read"})
				return call("toolu_1", "bash", string(args))
			}},
	}
}

// A ticket's files reach each engine: written into the run outside the
// worktree, named in the prompt (the CLI's command reads the text file
// there), the picture shown to the model with the first request (an
// image part in the provider's request, again when the next run resumes
// the session), and the transcript keeps the picture's hash, not its
// bytes.
func TestEnginesGetTheTicketsFiles(t *testing.T) {
	for _, c := range engineCases() {
		t.Run(c.program, func(t *testing.T) {
			t.Parallel()
			shot := testPNG(t, 7)
			notes := []byte("the log line the person pasted: ERR-4711\n")
			srv := llmtest.NewServer(t)
			f := newFixture(t, c.e, c.program, c.model, c.env(srv))
			f.opts.Images = func(string) bool { return true }
			var err error
			if f.runner, err = engine.New(f.opts); err != nil {
				t.Fatal(err)
			}
			f.job.Attachments = []agentjob.Attached{attached("screen shot.png", board.MediaPNG, shot, false),
				attached("notes.txt", board.MediaText, notes, true)}
			dir := filepath.Join(engine.StateRoot(f.dir, "demo", 1), "config", c.e.Name(), "attachments")
			srv.Push(c.shell("cat '"+filepath.Join(dir, "notes.txt")+"'"), text("Seen."))

			out, err := f.runner.RunAgent(context.Background(), f.job)
			if err != nil || out.Status != board.RunCompleted {
				t.Fatalf("outcome %+v, %v", out, err)
			}
			for name, want := range map[string][]byte{"screen shot.png": shot, "notes.txt": notes} {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(b, want) {
					t.Errorf("%s in the run: %d bytes, %v", name, len(b), err)
				}
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request reached the provider")
			}
			b64 := base64.StdEncoding.EncodeToString(shot)
			if !hasImagePart(reqs[0].Body, b64) {
				t.Errorf("the first request has no image part with the picture:\n%s", cut(string(reqs[0].Raw)))
			}
			if !strings.Contains(string(reqs[0].Raw), filepath.Join(dir, "notes.txt")) {
				t.Errorf("the prompt does not name the file in the run")
			}
			if !readNotes(f.transcript(t), "ERR-4711") {
				t.Errorf("the CLI's command did not read the text file in the run")
			}

			// The next run resumes the session, and shows the picture
			// again with its first message, as Bonsai's own agent does.
			srv.Push(text("Again."))
			if out, err := f.runner.RunAgent(context.Background(), f.job); err != nil || out.Status != board.RunCompleted {
				t.Fatalf("resumed run: %+v, %v", out, err)
			}
			reqs = srv.Requests()
			if last := reqs[len(reqs)-1]; imageParts(last.Body, b64) < 2 || !strings.Contains(string(last.Raw), "Seen.") {
				t.Errorf("the resumed run's request has %d image parts with the picture (want the first run's and its own), or lacks the first run:\n%s",
					imageParts(last.Body, b64), cut(string(last.Raw)))
			}
			raw, err := os.ReadFile(f.job.SessionFile)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), b64) || !strings.Contains(string(raw), f.job.Attachments[0].SHA256) {
				t.Errorf("the transcript should keep the picture's hash, not its bytes")
			}
		})
	}
}

// hasImagePart reports whether a decoded request body holds an image
// part whose data is b64.
func hasImagePart(v any, b64 string) bool { return imageParts(v, b64) > 0 }

// imageParts counts a decoded request body's image parts (Anthropic's
// image block, the Responses API's input_image) whose data is b64.
func imageParts(v any, b64 string) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		if t, _ := x["type"].(string); t == "image" || t == "input_image" {
			b, _ := json.Marshal(x)
			if strings.Contains(string(b), b64) {
				return 1
			}
		}
		for _, y := range x {
			n += imageParts(y, b64)
		}
	case []any:
		for _, y := range x {
			n += imageParts(y, b64)
		}
	}
	return n
}

// readNotes reports whether a tool result of the transcript holds s.
func readNotes(ents []session.Entry, s string) bool {
	for _, e := range ents {
		if e.Message != nil && e.Message.Role == llm.RoleToolResult && strings.Contains(e.Message.Text(), s) {
			return true
		}
	}
	return false
}
