package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

var (
	//go:embed prompts/compact_system.md
	compactSystem string
	//go:embed prompts/compact.md
	compactTemplate string
	//go:embed prompts/compact_previous.md
	compactPrevious string
)

// ErrNothingToCompact means the context is too small to compact.
var ErrNothingToCompact = errors.New("nothing to compact: the conversation is shorter than the part kept verbatim")

// Compact summarises the older part of the conversation now. It fails
// while a run is going.
func (a *Agent) Compact(ctx context.Context) error {
	if !a.start() {
		return ErrBusy
	}
	defer a.stop()
	return a.compact(ctx)
}

// needsCompaction reports whether the context exceeds the model's window
// minus the reserve.
func (a *Agent) needsCompaction() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.info.ContextWindow
	return w > 0 && a.contextTokens() > int64(w-a.cfg.CompactReserve)
}

// contextTokens is the size of the context: what the last response
// reported plus an estimate of the messages added since.
func (a *Agent) contextTokens() int64 {
	n := a.lastCtx
	for _, m := range a.messages[min(a.lastAt, len(a.messages)):] {
		n += int64(estimateTokens(m))
	}
	return n
}

// estimateTokens guesses a message's tokens at four bytes per token.
func estimateTokens(m llm.Message) int {
	n := 0
	for _, p := range m.Content {
		switch p.Type {
		case llm.PartImage:
			n += 4800
		default:
			n += len(p.Text) + len(p.Thinking) + len(p.Name) + len(p.Arguments)
		}
	}
	return n/4 + 4
}

// cutPoint returns the index of the first message kept verbatim: the
// newest messages worth at least keep tokens, moved back so that a tool
// result stays with its call. 0 means there is nothing to summarise.
func cutPoint(msgs []llm.Message, ids []string, keep int) int {
	tokens := 0
	for i := len(msgs) - 1; i > 0; i-- {
		tokens += estimateTokens(msgs[i])
		if tokens < keep {
			continue
		}
		for i > 0 && msgs[i].Role == llm.RoleToolResult {
			i--
		}
		if i > 0 && ids[i] == "" {
			return 0
		}
		return i
	}
	return 0
}

// compact summarises the messages before the cut point with the model,
// records a compaction entry and reloads the context.
func (a *Agent) compact(ctx context.Context) error {
	a.mu.Lock()
	msgs, ids := a.messages, a.entryIDs
	model, info := a.model, a.info
	tokens := a.contextTokens()
	prev := a.session.Context().Compaction
	a.mu.Unlock()

	cut := cutPoint(msgs, ids, a.keepRecent(info))
	if cut == 0 {
		return ErrNothingToCompact
	}
	a.emit(Event{Type: EventCompactionStart})
	c, err := a.summarise(ctx, model, info, msgs, ids, cut, prev)
	if err == nil {
		c.TokensBefore = tokens
		a.mu.Lock()
		_, err = a.session.AppendCompaction(c)
		if err == nil {
			a.reload()
		}
		a.mu.Unlock()
	}
	ev := Event{Type: EventCompactionEnd}
	if err != nil {
		err = fmt.Errorf("compact: %w", err)
		ev.Message = &llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: err.Error()}
	} else {
		ev.Compaction = &c
	}
	a.emit(ev)
	return err
}

// keepRecent is how many tokens stay verbatim.
func (a *Agent) keepRecent(info llm.Info) int {
	keep := a.cfg.KeepRecent
	if w := info.ContextWindow; w > 0 && keep > w/4 {
		keep = w / 4 // a small local model cannot keep 20,000 tokens
	}
	return keep
}

func (a *Agent) summarise(ctx context.Context, model llm.Model, info llm.Info, msgs []llm.Message, ids []string, cut int, prev *session.Compaction) (session.Compaction, error) {
	old := msgs[:cut]
	if prev != nil && len(old) > 0 && ids[0] == "" {
		old = old[1:] // the previous summary goes in separately
	}
	previous := ""
	if prev != nil {
		previous = strings.Replace(compactPrevious, "{{SUMMARY}}", prev.Summary, 1)
	}
	prompt := strings.Replace(compactTemplate, "{{PREVIOUS}}", previous, 1)
	prompt = strings.Replace(prompt, "{{CONVERSATION}}", serialize(old), 1)
	req := llm.Request{System: compactSystem, Messages: []llm.Message{llm.UserText(prompt)}, MaxTokens: min(info.MaxOutputTokens, 8192)}
	if req.MaxTokens <= 0 {
		req.MaxTokens = 8192
	}
	resp, err := llm.Collect(model.Stream(ctx, req))
	if err != nil {
		return session.Compaction{}, err
	}
	summary := strings.TrimSpace(resp.Text())
	if summary == "" {
		return session.Compaction{}, errors.New("the model returned an empty summary")
	}
	if resp.Usage != nil {
		a.mu.Lock()
		a.usage = a.usage.Add(*resp.Usage)
		a.mu.Unlock()
	}
	read, modified := touchedFiles(old, prev)
	return session.Compaction{Summary: summary + fileLists(read, modified), FirstKeptEntryID: ids[cut],
		ReadFiles: read, ModifiedFiles: modified}, nil
}

// serialize renders messages as plain text for the summariser; long tool
// results are cut, since the summary needs their gist only.
func serialize(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			b.WriteString("[user]\n")
		case llm.RoleAssistant:
			b.WriteString("[assistant]\n")
		case llm.RoleToolResult:
			if m.IsError {
				fmt.Fprintf(&b, "[%s result, error]\n", m.ToolName)
			} else {
				fmt.Fprintf(&b, "[%s result]\n", m.ToolName)
			}
		}
		for _, p := range m.Content {
			switch p.Type {
			case llm.PartText:
				t := p.Text
				if m.Role == llm.RoleToolResult {
					t = clip(t, 2000)
				}
				b.WriteString(t)
				b.WriteString("\n")
			case llm.PartToolCall:
				fmt.Fprintf(&b, "(calls %s %s)\n", p.Name, clip(string(p.Arguments), 2000))
			case llm.PartImage:
				b.WriteString("(image)\n")
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// touchedFiles lists the paths the read, write and edit calls of msgs
// used, merged with the previous compaction's lists. A file both read and
// modified is listed as modified.
func touchedFiles(msgs []llm.Message, prev *session.Compaction) (read, modified []string) {
	r, w := map[string]bool{}, map[string]bool{}
	if prev != nil {
		for _, p := range prev.ReadFiles {
			r[p] = true
		}
		for _, p := range prev.ModifiedFiles {
			w[p] = true
		}
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls() {
			var args struct {
				Path string `json:"path"`
			}
			if json.Unmarshal(c.Arguments, &args) != nil || args.Path == "" {
				continue
			}
			switch c.Name {
			case "read":
				r[args.Path] = true
			case "write", "edit":
				w[args.Path] = true
			}
		}
	}
	for p := range r {
		if !w[p] {
			read = append(read, p)
		}
	}
	for p := range w {
		modified = append(modified, p)
	}
	slices.Sort(read)
	slices.Sort(modified)
	return read, modified
}

func fileLists(read, modified []string) string {
	var b strings.Builder
	if len(read) > 0 {
		b.WriteString("\n\n<read-files>\n" + strings.Join(read, "\n") + "\n</read-files>")
	}
	if len(modified) > 0 {
		b.WriteString("\n\n<modified-files>\n" + strings.Join(modified, "\n") + "\n</modified-files>")
	}
	return b.String()
}
