package web

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// splitSettings decodes a JSON object into own, a pointer to a struct
// whose json tags name its own fields, and returns the object's other
// fields, which must be settings of board.Settings, decoded by the table.
// A null field is left out: it keeps the value.
// So every setting of the table is a field of the API's project create and
// PATCH without a field of its own here. An unknown field is an error.
func splitSettings(data []byte, own any) (map[string]any, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	names := jsonNames(reflect.TypeOf(own).Elem())
	mine := map[string]json.RawMessage{}
	var settings map[string]any
	for k, raw := range obj {
		if string(raw) == "null" {
			continue // null keeps the value, as an absent field does
		}
		if names[k] {
			mine[k] = raw
			continue
		}
		s, ok := board.LookupSetting(k)
		if !ok {
			return nil, board.Errorf(board.EINVALID, "json: unknown field %q", k)
		}
		v, err := s.DecodeJSON(raw)
		if err != nil {
			return nil, err
		}
		if settings == nil {
			settings = map[string]any{}
		}
		settings[k] = v
	}
	b, err := json.Marshal(mine)
	if err != nil {
		return nil, err
	}
	return settings, json.Unmarshal(b, own)
}

// jsonNames are the JSON names of a struct's fields.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

// UnmarshalJSON reads a PATCH body: projectEdit's own fields, and the
// other settings of board.Settings into Settings.
func (e *projectEdit) UnmarshalJSON(data []byte) error {
	type fields projectEdit // without this method
	var err error
	e.Settings, err = splitSettings(data, (*fields)(e))
	return err
}

// UnmarshalJSON reads a create body: newProjectInput's own fields, and
// the other settings of board.Settings into Settings.
func (in *newProjectInput) UnmarshalJSON(data []byte) error {
	type fields newProjectInput // without this method
	var err error
	in.Settings, err = splitSettings(data, (*fields)(in))
	return err
}

// cleanSettings checks the settings of values (by Setting.Name) as the
// form checks its fields: texts are trimmed, lists lose their blank items
// and have each item checked (command patterns by the policy), a model
// is checked against the catalog's providers. It returns the good ones;
// errs gets what is wrong with the others.
func (s *Server) cleanSettings(values map[string]any, errs fieldErrors) map[string]any {
	out := make(map[string]any, len(values))
	for _, st := range board.Settings {
		v, ok := values[st.Name]
		if !ok {
			continue
		}
		switch x := v.(type) {
		case string:
			if st.Kind == board.KindText {
				v = strings.TrimSpace(x)
			}
		case []string:
			check := func(it string) error { return st.Check([]string{it}) }
			if st.Name == "allow" || st.Name == "ask" {
				check = checkCommandPattern
			}
			l, msg := cleanList(st.Name, x, check)
			if msg != "" {
				errs[st.Name] = msg
				continue
			}
			v = l
		}
		if m, ok := v.(string); ok && st.Name == "model" && m != "" && s.opts.CheckModel != nil {
			if err := st.Check(m); err != nil { // its form first, then its provider
				errs[st.Name] = err.Error()
				continue
			}
			if err := s.opts.CheckModel(m); err != nil {
				errs[st.Name] = err.Error()
				continue
			}
		}
		out[st.Name] = v
	}
	return out
}

// planSettings adds to u the settings of values (by Setting.Name) that
// change cur, and to errs what is wrong with each, checked one by one
// against the project.
func planSettings(cur board.Project, values map[string]any, u *board.ProjectPatch, errs fieldErrors) {
	for _, s := range board.Settings {
		v, ok := values[s.Name]
		if !ok {
			continue
		}
		p := cur
		changed, err := board.SetSettings(&p.Agent, map[string]any{s.Name: v})
		if err == nil && len(changed) > 0 {
			err = p.Validate()
		}
		switch {
		case err != nil:
			errs[s.Name] = err.Error()
		case len(changed) > 0:
			if u.Settings == nil {
				u.Settings = map[string]any{}
			}
			u.Settings[s.Name] = v
		}
	}
}

// tableField is an input of the project settings form made from a row of
// board.Settings that has a section of its own (Setting.Row), such as
// the sandbox limits; Section is set on the first of each section.
type tableField struct {
	Name, Label, Help, Value, Error, Section string
}

// TableFields are the inputs of the settings the table shows in sections
// of their own, in table order.
func (v projectSettingsView) TableFields() []tableField {
	var out []tableField
	last := ""
	for _, s := range board.Settings {
		if s.Row == "" {
			continue
		}
		f := tableField{Name: s.Name, Label: s.Label, Help: s.Help, Value: v.Form.Table[s.Name], Error: v.Errors[s.Name]}
		if s.Unit != "" {
			f.Label += " (" + s.Unit + ")"
		}
		if s.Row != last {
			f.Section, last = s.Row, s.Row
		}
		out = append(out, f)
	}
	return out
}

// tableForm shows the settings of TableFields as the form's inputs do: 0
// and false as an empty input (the default).
func tableForm(a board.AgentSettings) map[string]string {
	out := map[string]string{}
	for _, s := range board.Settings {
		if s.Row != "" && !s.IsDefault(a) {
			out[s.Name] = s.Format(a)
		}
	}
	return out
}

// parseTableForm reads the posted inputs of TableFields into the form as
// shown and into e's Settings; a value that does not parse is an error
// next to its input.
func parseTableForm(field func(name string) (string, bool), f *projectForm, e *projectEdit, errs fieldErrors) {
	f.Table = map[string]string{}
	for _, s := range board.Settings {
		t, ok := field(s.Name)
		if s.Row == "" || !ok {
			continue
		}
		f.Table[s.Name] = t
		v, err := s.Parse(t)
		if err != nil {
			errs[s.Name] = err.Error()
			continue
		}
		if e.Settings == nil {
			e.Settings = map[string]any{}
		}
		e.Settings[s.Name] = v
	}
}
