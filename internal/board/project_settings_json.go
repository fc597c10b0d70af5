package board

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
)

// EncodeSettings returns a's settings as stores keep them: one JSON
// object holding the settings that differ from their defaults, by
// Setting.Name, and the Unknown ones as they were read.
func EncodeSettings(a AgentSettings) ([]byte, error) {
	obj := make(map[string]any, len(a.Unknown))
	for k, v := range a.Unknown {
		obj[k] = v
	}
	for _, s := range Settings {
		if !s.IsDefault(a) {
			obj[s.Name] = s.Get(a)
		}
	}
	return json.Marshal(obj) // sorts the keys
}

// DecodeSettings reads settings stored by EncodeSettings, checking each
// known one with the table (its type, choice or range) and keeping the
// others in Unknown.
func DecodeSettings(data []byte) (AgentSettings, error) {
	// Most stored objects hold known settings only: one strict decode
	// reads them (AgentSettings' JSON names are the settings' names).
	var a AgentSettings
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || a.Unknown != nil {
		return decodeSettingsSlowly(data)
	}
	for _, s := range Settings {
		if err := s.checkIn(a); err != nil {
			return a, Errorf(EINVALID, "stored project setting %s: %v", s.Name, err)
		}
		if l, ok := s.ptr(&a).(*[]string); ok && len(*l) == 0 {
			*l = nil // an empty list reads back as none, as set stores it
		}
	}
	return a, nil
}

// decodeSettingsSlowly is DecodeSettings setting by setting: for an
// object holding settings this version does not know, or a bad value,
// which it names.
func decodeSettingsSlowly(data []byte) (AgentSettings, error) {
	var a AgentSettings
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return a, Errorf(EINVALID, "stored project settings are not a JSON object: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		raw := obj[name]
		s, ok := LookupSetting(name)
		if !ok {
			if a.Unknown == nil {
				a.Unknown = map[string]json.RawMessage{}
			}
			a.Unknown[name] = raw
			continue
		}
		v, err := s.DecodeJSON(raw)
		if err == nil {
			err = s.Check(v)
		}
		if err != nil {
			return a, Errorf(EINVALID, "stored project setting %s: %v", name, err)
		}
		_ = s.set(&a, v)
	}
	return a, nil
}

// DecodeJSON reads a value of the setting from JSON, as the API and the
// stored settings give it: a string, a number, true or false, or a list of
// strings; a choice by its name or stored value. It returns what Get
// returns; null is the default.
func (s Setting) DecodeJSON(raw json.RawMessage) (any, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if s.Kind == KindList {
			return []string(nil), nil
		}
		return zeroOf(s.Kind), nil
	}
	var err error
	switch s.Kind {
	case KindInt:
		var n int64
		if err = json.Unmarshal(raw, &n); err == nil {
			return n, nil
		}
	case KindUSD:
		var f float64
		if err = json.Unmarshal(raw, &f); err == nil {
			return f, nil
		}
	case KindBool:
		var b bool
		if err = json.Unmarshal(raw, &b); err == nil {
			return b, nil
		}
	case KindList:
		var l []string
		if err = json.Unmarshal(raw, &l); err == nil {
			return l, nil
		}
	default:
		var t string
		if err = json.Unmarshal(raw, &t); err == nil {
			if s.Kind == KindChoice {
				return s.choice.parse(t)
			}
			return t, nil
		}
	}
	return nil, Errorf(EINVALID, "%s: want %s, got %s", s.Name, kindWords[s.Kind], raw)
}

// kindWords say what JSON a kind takes.
var kindWords = map[SettingKind]string{KindText: "a string", KindInt: "a whole number", KindUSD: "a number of dollars",
	KindBool: "true or false", KindChoice: "one of its names as a string", KindList: "a list of strings"}
