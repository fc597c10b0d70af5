package credentials

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// keyFileName is the key file in the data directory, used when no OS
// keychain answers.
const keyFileName = "credentials.key"

func keyFilePath(dir string) string { return filepath.Join(dir, keyFileName) }

// keyFile keeps keys in a 0600 file beside credentials.json, one
// "id hex-key" line per key. Put appends: a key is never overwritten, so a
// credentials.json moved aside stays readable.
type keyFile struct{ path string }

func (keyFile) Kind() string { return KindFile }

func (k keyFile) Get(id string) ([]byte, error) {
	b, err := os.ReadFile(k.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("key file %s is missing: %w", k.path, ErrNoKey)
	}
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if lid, key, ok := strings.Cut(strings.TrimSpace(line), " "); ok && lid == id {
			key, err := decodeKey([]byte(key))
			if err != nil {
				return nil, fmt.Errorf("key file %s: %w", k.path, err)
			}
			return key, nil
		}
	}
	return nil, fmt.Errorf("key file %s holds no key %s: %w", k.path, id, ErrNoKey)
}

func (k keyFile) Put(id string, key []byte) error {
	old, err := os.ReadFile(k.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("key file: %w", err)
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	b := append(old, []byte(id+" "+hex.EncodeToString(key)+"\n")...)
	return writeAtomic(k.path, b)
}
