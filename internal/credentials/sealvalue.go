package credentials

import (
	"fmt"
	"strings"
)

// SealedPrefix begins every value Seal returns, so a reader tells a
// sealed value from a plain one written before values were sealed.
const SealedPrefix = "sealed:v1:"

// IsSealed says whether v came from Seal.
func IsSealed(v string) bool { return strings.HasPrefix(v, SealedPrefix) }

// Seal encrypts value with the store's key, name bound as additional data
// so the result opens only under the same name. The key is created the
// first time, as Set does. The result is text for another file or
// database to keep: a copy of it without the key is no use.
func (s *Store) Seal(name, value string) (string, error) {
	key, err := s.sealKey(true)
	if err != nil {
		return "", err
	}
	sealed, err := seal(key, name, value)
	if err != nil {
		return "", err
	}
	return SealedPrefix + sealed, nil
}

// Unseal reverses Seal. A value without SealedPrefix is a plain one from
// before and comes back as it is.
func (s *Store) Unseal(name, v string) (string, error) {
	if !IsSealed(v) {
		return v, nil
	}
	key, err := s.sealKey(false)
	if err != nil {
		return "", err
	}
	plain, err := unseal(key, name, strings.TrimPrefix(v, SealedPrefix))
	if err != nil {
		return "", fmt.Errorf("%s %w: restore the key of %s, or set the value again", name, err, s.Path())
	}
	return plain, nil
}

// sealKey returns the store's key; create makes credentials.json and its
// key when there is none.
func (s *Store) sealKey(create bool) ([]byte, error) {
	f, err := readFile(s.Path())
	if err != nil {
		return nil, err
	}
	if f == nil {
		if !create {
			return nil, fmt.Errorf("%s is missing, and with it the key of the sealed values: restore it (and its key), or set the values again", s.Path())
		}
		var key []byte
		err := s.update(func(nf *fileFormat, k []byte) error {
			key = k
			return nil
		})
		return key, err
	}
	return s.keyOf(f)
}
