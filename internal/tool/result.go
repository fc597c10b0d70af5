package tool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Result is the outcome of one tool call. Its JSON is the shape events
// carry: {"content":[…],"isError":true,"details":{…}}.
type Result struct {
	// Content is what the model reads: text and image parts.
	Content []llm.Part `json:"content"`
	// IsError reports whether the call failed or was refused.
	IsError bool `json:"isError,omitempty"`
	// Details is structured data for user interfaces (diffs, exit codes);
	// the model never sees it. It is stored with the result in the session.
	Details any `json:"details,omitempty"`
	// Terminate ends the run once the turn's tool calls are done (a
	// ticket_ask waiting for a person).
	Terminate bool `json:"-"`
}

// Text returns a successful result holding one text part.
func Text(text string) Result {
	return Result{Content: []llm.Part{llm.Text(text)}}
}

// Error returns a failed result holding one text part.
func Error(text string) Result {
	return Result{Content: []llm.Part{llm.Text(text)}, IsError: true}
}

// Errorf returns a failed result holding one formatted text part.
func Errorf(format string, args ...any) Result {
	return Error(fmt.Sprintf(format, args...))
}

// Text returns the concatenated text parts of r.
func (r Result) Text() string {
	var b strings.Builder
	for _, p := range r.Content {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// DetailsJSON returns Details encoded for the session, nil when there
// are none. Details that cannot be encoded are stored as the error's text.
func (r Result) DetailsJSON() json.RawMessage {
	if r.Details == nil {
		return nil
	}
	b, err := json.Marshal(r.Details)
	if err != nil {
		b, _ = json.Marshal(err.Error())
	}
	return b
}
