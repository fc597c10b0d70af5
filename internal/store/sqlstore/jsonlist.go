package sqlstore

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
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
	var b []byte
	switch v := src.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("list column: unexpected %T", src)
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
