package board

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON writes a ticket reference as every JSON output names a
// ticket: the string "slug#n" ("" for the zero Ref).
func (r Ref) MarshalJSON() ([]byte, error) {
	if r == (Ref{}) {
		return []byte(`""`), nil
	}
	return json.Marshal(r.String())
}

// UnmarshalJSON reads "slug#n", "" (the zero Ref), or the object
// {"project": …, "number": …} that earlier versions wrote.
func (r *Ref) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '{' {
		var o struct {
			Project string
			Number  int
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return fmt.Errorf("ticket reference: %w", err)
		}
		*r = Ref{Project: o.Project, Number: o.Number}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("ticket reference must be a string like \"demo#12\": %w", err)
	}
	if s == "" {
		*r = Ref{}
		return nil
	}
	ref, err := ParseRef(s)
	if err != nil {
		return err
	}
	*r = ref
	return nil
}
