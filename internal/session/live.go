package session

// A live file (LiveFileName, beside a ticket's transcript) holds the
// assistant message being streamed, so that `bonsai serve` can show it
// before it is complete: LiveWriter writes it, LiveReader follows it. Its
// format is described in docs/web.md ("The message being written").

// The types of live file lines. The first line of a file is a message
// line; delta lines follow; a done line ends it.
const (
	LiveMessage = "message"
	LiveDelta   = "delta"
	LiveDone    = "done"
)

// LiveLine is one line of a live file.
type LiveLine struct {
	Type string `json:"type"` // LiveMessage, LiveDelta or LiveDone
	// At is the transcript's size in bytes when the message started: the
	// offset its complete entry is appended at (message lines).
	At int64 `json:"at,omitempty"`
	// I is the part's index in the message's content (delta lines).
	I int `json:"i,omitempty"`
	// Kind is the part's type: text, thinking or toolCall for a message
	// being streamed, LiveRun or LiveOutput for tool calls being run
	// (delta lines).
	Kind string `json:"kind,omitempty"`
	// Name is a tool call's name, on its first delta line.
	Name string `json:"name,omitempty"`
	// Since is when a running tool call started, in Unix milliseconds,
	// on its LiveRun line.
	Since int64 `json:"since,omitempty"`
	// D is the text, thinking or argument JSON appended to the part.
	D string `json:"d,omitempty"`
}

// The kinds of the parts of a live file written while tool calls run
// (LiveWriter.ToolStart): a call's part holds its name, start time and
// arguments; the part after it holds what the call printed so far.
const (
	LiveRun    = "run"
	LiveOutput = "output"
)

// maxLivePart is the highest part index a reader accepts.
const maxLivePart = 1000
