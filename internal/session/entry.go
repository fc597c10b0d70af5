package session

import (
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Version is the version of the file format written in headers.
const Version = 1

// EntryType names the kind of an entry.
type EntryType string

// The entry types.
const (
	TypeSession     EntryType = "session" // the header line only
	TypeMessage     EntryType = "message"
	TypeModelChange EntryType = "model_change"
	TypeCompaction  EntryType = "compaction"
	TypeLabel       EntryType = "label"
	TypeCustom      EntryType = "custom"
)

// Header is the first line of a session file.
type Header struct {
	Type      EntryType `json:"type"`
	Version   int       `json:"version"`
	ID        string    `json:"id"`
	Timestamp string    `json:"timestamp"`
	Cwd       string    `json:"cwd"`
	// ParentSession is the file a fork was made from, when it is one.
	ParentSession string `json:"parentSession,omitempty"`
}

// Entry is one line of a session file after the header. Which fields are
// set depends on Type; the others are empty and omitted from JSON.
type Entry struct {
	Type EntryType `json:"type"`
	ID   string    `json:"id"`
	// ParentID is the previous entry on this branch; "" (null in JSON)
	// for the first entry.
	ParentID  string `json:"parentId"`
	Timestamp string `json:"timestamp"`

	// Message entries. Details is structured data about a tool result for
	// user interfaces (line counts, diffs, exit codes); the model never
	// sees it.
	Message *llm.Message    `json:"message,omitempty"`
	Details json.RawMessage `json:"details,omitempty"`

	// Model change entries: the "provider/model" id and thinking level in
	// use from here on.
	Model    string `json:"model,omitempty"`
	Thinking string `json:"thinking,omitempty"`

	// Compaction entries.
	*Compaction

	// Label entries: Label names TargetID; an empty label removes it.
	TargetID string `json:"targetId,omitempty"`
	Label    string `json:"label,omitempty"`

	// Custom entries: data kept for the host, never sent to the model.
	CustomType string          `json:"customType,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// Compaction records that the messages before FirstKeptEntryID were
// replaced by Summary.
type Compaction struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	// TokensBefore is the size of the context that was compacted.
	TokensBefore int64 `json:"tokensBefore"`
	// ReadFiles and ModifiedFiles are the workspace-relative files the
	// summarised part read and changed (cumulative over compactions).
	ReadFiles     []string `json:"readFiles,omitempty"`
	ModifiedFiles []string `json:"modifiedFiles,omitempty"`
}

// MarshalJSON writes the parent id as null for the first entry.
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	var parent *string
	if e.ParentID != "" {
		parent = &e.ParentID
	}
	return json.Marshal(struct {
		Type      EntryType `json:"type"`
		ID        string    `json:"id"`
		ParentID  *string   `json:"parentId"`
		Timestamp string    `json:"timestamp"`
		plain
	}{e.Type, e.ID, parent, e.Timestamp, plain(e)})
}

// valid reports whether the entry has what its type needs.
func (e *Entry) valid() bool {
	if e.ID == "" || e.ID == e.ParentID {
		return false
	}
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return false
		}
		switch e.Message.Role {
		case llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult:
			return true
		}
		return false
	case TypeCompaction:
		return e.Compaction != nil
	case "", TypeSession:
		return false
	}
	return true
}
