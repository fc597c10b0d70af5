package store

import (
	"encoding/json"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// ChannelRow is a notification channel's row as either store scans it:
// its lists as JSON text and its time in unix milliseconds.
type ChannelRow struct {
	C        board.Channel
	Kinds    string
	Settings string
	Created  int64
}

// Dest is where a row of the stores' channel columns (id, name, kind,
// project slug, kinds, settings, created) scans into.
func (r *ChannelRow) Dest() []any {
	return []any{&r.C.ID, &r.C.Name, &r.C.Kind, &r.C.ProjectSlug, &r.Kinds, &r.Settings, &r.Created}
}

// Channel decodes the row.
func (r *ChannelRow) Channel() (board.Channel, error) {
	c := r.C
	c.CreatedAt = millis(r.Created)
	if err := json.Unmarshal([]byte(r.Kinds), &c.Kinds); err != nil {
		return c, fmt.Errorf("channel %s kinds: %w", c.Name, err)
	}
	if err := json.Unmarshal([]byte(r.Settings), &c.Settings); err != nil {
		return c, fmt.Errorf("channel %s settings: %w", c.Name, err)
	}
	return c, nil
}

// NewChannel validates c for AddChannel and returns it with empty lists
// for nil ones, and its kinds and settings as the JSON a store saves.
func NewChannel(c board.Channel) (board.Channel, string, string, error) {
	if err := c.Validate(); err != nil {
		return board.Channel{}, "", "", err
	}
	if c.Kinds == nil {
		c.Kinds = []board.NotifyKind{}
	}
	if c.Settings == nil {
		c.Settings = map[string]string{}
	}
	kinds, err := json.Marshal(c.Kinds)
	if err != nil {
		return board.Channel{}, "", "", err
	}
	settings, err := json.Marshal(c.Settings)
	if err != nil {
		return board.Channel{}, "", "", err
	}
	return c, string(kinds), string(settings), nil
}
