package doctor

import (
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/credentials"
)

// Credentials reads the stored credentials of s, as every beat would: a
// credentials.json whose key is gone leaves the service without keys.
// openErr is why s could not be had.
func Credentials(s *credentials.Store, openErr error) Check {
	c := Check{Name: "credentials"}
	if openErr != nil {
		c.Status, c.Detail = Skip, openErr.Error()
		return c
	}
	aside := fmt.Sprintf("move %s aside and store the keys again: bonsai credentials set <provider>", s.Path())
	entries, err := s.List()
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, err.Error(), aside
		return c
	}
	if len(entries) == 0 {
		c.Status, c.Detail = Skip, "none stored; keys come from the environment only (bonsai credentials set stores one the service can read)"
		return c
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	if _, err := s.All(); err != nil {
		kr, _ := s.Keyring()
		c.Status, c.Detail = Fail, err.Error()
		c.Fix = fmt.Sprintf("restore the key (kept in %s), or %s", kr, aside)
		return c
	}
	kr, _ := s.Keyring()
	c.Status, c.Detail = OK, fmt.Sprintf("%s stored, readable with the key in %s", strings.Join(names, ", "), kr)
	return c
}

// Config is the check of config.json at path: loadErr is config.Load's
// error and fix how to repair it ("" when the file cannot be read).
func Config(path string, loadErr error, fix string) Check {
	c := Check{Name: "config"}
	if loadErr != nil {
		c.Status, c.Detail, c.Fix = Fail, loadErr.Error(), fix
		if c.Fix == "" {
			c.Fix = "make the file readable by you: chmod 600 " + path
		}
		return c
	}
	c.Status, c.Detail = OK, path+" is valid"
	return c
}
