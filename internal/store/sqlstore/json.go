package sqlstore

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// jsonList stores a list of strings in a TEXT column as a JSON array; nil
// is stored as [] and read back as nil.
type jsonList struct{ p *[]string }

// Value implements driver.Valuer.
func (l jsonList) Value() (driver.Value, error) {
	if len(*l.p) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(*l.p)
	return string(b), err
}

// Scan implements sql.Scanner.
func (l jsonList) Scan(src any) error {
	b, err := textBytes(src, "list")
	if err != nil {
		return err
	}
	if string(b) == "[]" {
		*l.p = nil // most lists are empty: no decoder needed
		return nil
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("list column: %w", err)
	}
	if len(out) == 0 {
		out = nil
	}
	*l.p = out
	return nil
}

// jsonMap stores a map of strings in a TEXT column as a JSON object; nil
// is stored as {} and read back as an empty map.
type jsonMap struct{ p *map[string]string }

// Value implements driver.Valuer.
func (m jsonMap) Value() (driver.Value, error) {
	if len(*m.p) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(*m.p)
	return string(b), err
}

// Scan implements sql.Scanner.
func (m jsonMap) Scan(src any) error {
	b, err := textBytes(src, "map")
	if err != nil {
		return err
	}
	out := map[string]string{}
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("map column: %w", err)
	}
	*m.p = out
	return nil
}

// settingsJSON stores a project's agent settings in a TEXT column as the
// JSON object of board.EncodeSettings, and reads them back checked by
// the settings table, keeping unknown keys.
type settingsJSON struct{ a *board.AgentSettings }

// Value implements driver.Valuer.
func (j settingsJSON) Value() (driver.Value, error) {
	b, err := board.EncodeSettings(*j.a)
	return string(b), err
}

// Scan implements sql.Scanner.
func (j settingsJSON) Scan(src any) error {
	b, err := textBytes(src, "settings")
	if err != nil {
		return err
	}
	a, err := board.DecodeSettings(b)
	*j.a = a
	return err
}
