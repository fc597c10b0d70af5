package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// UsageSince sums the usage of the assistant messages of the session file
// at path written at or after since: what the model calls of a run that
// started then cost, as far as the transcript recorded them. A missing
// file is no usage. Entries whose time cannot be read are not counted.
func UsageSince(path string, since time.Time) (llm.Usage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return llm.Usage{}, nil
	}
	if err != nil {
		return llm.Usage{}, fmt.Errorf("read usage: %w", err)
	}
	defer f.Close()
	_, entries, _, err := Read(f)
	if err != nil {
		return llm.Usage{}, fmt.Errorf("read usage: %w", err)
	}
	// Timestamps have millisecond precision; so has a run's start time
	// in the store, but truncate in case a caller's has more.
	since = since.Truncate(time.Millisecond)
	var u llm.Usage
	for _, e := range entries {
		if e.Type != TypeMessage || e.Message == nil || e.Message.Role != llm.RoleAssistant || e.Message.Usage == nil {
			continue
		}
		at, err := time.Parse(TimeFormat, e.Timestamp)
		if err != nil || at.Before(since) {
			continue
		}
		u = u.Add(*e.Message.Usage)
	}
	return u, nil
}
