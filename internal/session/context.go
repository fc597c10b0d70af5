package session

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

//go:embed summary.md
var summaryTemplate string

// interruptedText is the synthetic result of a tool call that never got one.
const interruptedText = "The tool call was interrupted before it returned a result (the process stopped). It may or may not have taken effect; check before repeating it."

// Context is what the model sees of a session at a leaf.
type Context struct {
	// Messages are the messages to send, oldest first.
	Messages []llm.Message
	// EntryIDs holds the id of the entry of each message; "" for the
	// compaction summary and synthetic tool results.
	EntryIDs []string
	// Model and Thinking are the latest model_change on the path ("" if none).
	Model    string
	Thinking llm.ThinkingLevel
	// Compaction is the latest compaction on the path, nil if none.
	Compaction *Compaction
}

// PathTo returns the entries from the root to id, root first.
func (s *File) PathTo(id string) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pathTo(id)
}

func (s *File) pathTo(id string) []Entry {
	var rev []Entry
	for id != "" {
		i, ok := s.byID[id]
		if !ok || len(rev) > len(s.ents) { // a cycle cannot happen, but never loop forever
			break
		}
		rev = append(rev, s.ents[i])
		id = s.ents[i].ParentID
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// Context returns the model's view of the current leaf.
func (s *File) Context() Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return BuildContext(s.pathTo(s.leaf))
}

// BuildContext builds the model's view of a path (root first): after the
// latest compaction, its summary comes first, then the messages from its
// first kept entry on. Tool calls without a result get a synthetic one.
func BuildContext(path []Entry) Context {
	var c Context
	start := 0
	for i, e := range path {
		switch e.Type {
		case TypeModelChange:
			c.Model, c.Thinking = e.Model, llm.ThinkingLevel(e.Thinking)
		case TypeCompaction:
			c.Compaction = e.Compaction
			start = i
		}
	}
	if c.Compaction != nil {
		text := strings.Replace(summaryTemplate, "{{SUMMARY}}", strings.TrimSpace(c.Compaction.Summary), 1)
		c.add(llm.UserText(text), "")
		kept := start
		for i := 0; i < start; i++ {
			if path[i].ID == c.Compaction.FirstKeptEntryID {
				kept = i
				break
			}
		}
		c.addMessages(path[kept:start])
		start++
	}
	c.addMessages(path[start:])
	c.answerOpenCalls(len(c.Messages))
	return c
}

func (c *Context) add(m llm.Message, id string) {
	c.Messages = append(c.Messages, m)
	c.EntryIDs = append(c.EntryIDs, id)
}

func (c *Context) addMessages(path []Entry) {
	for _, e := range path {
		if e.Type != TypeMessage {
			continue
		}
		if e.Message.Role != llm.RoleToolResult {
			c.answerOpenCalls(len(c.Messages))
		}
		c.add(*e.Message, e.ID)
	}
}

// answerOpenCalls adds synthetic results for the tool calls of the last
// assistant message before index end that have no result yet.
func (c *Context) answerOpenCalls(end int) {
	i := end - 1
	for i >= 0 && c.Messages[i].Role == llm.RoleToolResult {
		i--
	}
	if i < 0 || c.Messages[i].Role != llm.RoleAssistant {
		return
	}
	for _, call := range missingResults(c.Messages[i], c.Messages[i+1:end]) {
		c.add(InterruptedResult(call), "")
	}
}

// missingResults returns the tool calls of an assistant message that
// results does not answer.
func missingResults(asst llm.Message, results []llm.Message) []llm.Part {
	var missing []llm.Part
	for _, call := range asst.ToolCalls() {
		found := false
		for _, r := range results {
			if r.ToolCallID == call.ID {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, call)
		}
	}
	return missing
}

// InterruptedResult returns the synthetic result of a tool call that never
// got one.
func InterruptedResult(call llm.Part) llm.Message {
	return llm.ToolResultText(call.ID, call.Name, interruptedText, true)
}

// Repair appends a synthetic result for every tool call of the leaf's last
// assistant message that has no result, so that a session whose process
// died mid-tool can be resumed. It returns the number of results added.
func (s *File) Repair() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.pathTo(s.leaf)
	var results []llm.Message
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type != TypeMessage {
			continue
		}
		switch e.Message.Role {
		case llm.RoleToolResult:
			results = append(results, *e.Message)
			continue
		case llm.RoleAssistant:
			n := 0
			for _, call := range missingResults(*e.Message, results) {
				m := InterruptedResult(call)
				if _, err := s.append(Entry{Type: TypeMessage, Message: &m}); err != nil {
					return n, fmt.Errorf("repair session: %w", err)
				}
				n++
			}
			return n, nil
		}
		return 0, nil
	}
	return 0, nil
}

// Fork writes the path from the root to id into a new session file at
// path, whose header names this file as its parent, and returns it open.
func (s *File) Fork(id, path string) (*File, error) {
	s.mu.Lock()
	branch := s.pathTo(id)
	s.mu.Unlock()
	if id != "" && len(branch) == 0 {
		return nil, fmt.Errorf("fork at %s: %w", id, ErrUnknownEntry)
	}
	opts := s.opts
	opts.Mirror = nil // a fork is a file of its own
	n := New(s.header.Cwd, opts)
	n.header.ParentSession = s.path
	if path != "" {
		if err := n.create(path); err != nil {
			return nil, err
		}
	}
	for _, e := range branch {
		if n.f != nil {
			if err := n.write(e, false); err != nil {
				n.Close()
				os.Remove(path)
				return nil, err
			}
		}
		n.byID[e.ID] = len(n.ents)
		n.ents = append(n.ents, e)
		n.leaf = e.ID
	}
	if n.f != nil {
		if err := n.f.Sync(); err != nil {
			n.Close()
			return nil, fmt.Errorf("fork session: %w", err)
		}
	}
	return n, nil
}
