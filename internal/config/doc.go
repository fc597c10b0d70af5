// Package config locates Bonsai's data directory and loads, validates and
// writes its config.json.
//
// Every key of config.json is described once, in the schema table of
// schema.go; loading, `bonsai config get|set|list` and the web settings page
// all go through that table, so an unknown key, a wrong type or a value out
// of range is refused the same way everywhere, with an error that names the
// file, the key and what is allowed.
package config
