package credentials

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FileName is the credentials file in the data directory.
const FileName = "credentials.json"

// formatVersion is the version of credentials.json this Bonsai writes.
const formatVersion = 1

// fileFormat is credentials.json.
type fileFormat struct {
	// Bonsai marks the file as Bonsai's credentials; Version its format.
	Bonsai  string `json:"bonsai"`
	Version int    `json:"version"`
	// Keyring names where the key is ("file", "keychain",
	// "secret-service"), KeyID the key's name there.
	Keyring string           `json:"keyring"`
	KeyID   string           `json:"keyId"`
	Values  map[string]value `json:"credentials"`
}

// fileMagic is the value of the "bonsai" field.
const fileMagic = "credentials"

// value is one stored secret: sealed, with what `credentials list` shows.
type value struct {
	Sealed string    `json:"sealed"`
	Last4  string    `json:"last4,omitempty"`
	SetAt  time.Time `json:"setAt"`
}

// FileError is a credentials.json Bonsai cannot use; it is never
// overwritten.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s: %v; bonsai does not overwrite it: move it aside and set the keys again with 'bonsai credentials set'", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// readFile reads credentials.json; a missing file is (nil, nil).
func readFile(path string) (*fileFormat, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f fileFormat
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, &FileError{Path: path, Err: fmt.Errorf("not a Bonsai credentials file (%v)", err)}
	}
	switch {
	case f.Bonsai != fileMagic:
		return nil, &FileError{Path: path, Err: errors.New(`not a Bonsai credentials file (no "bonsai": "credentials")`)}
	case f.Version > formatVersion:
		return nil, &FileError{Path: path, Err: fmt.Errorf("written by a newer Bonsai (format %d; this one reads %d): upgrade bonsai", f.Version, formatVersion)}
	case f.Version < 1 || f.KeyID == "":
		return nil, &FileError{Path: path, Err: errors.New("not a Bonsai credentials file (no version or key id)")}
	}
	if _, err := keyringFor(f.Keyring, filepath.Dir(path)); err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	if f.Values == nil {
		f.Values = map[string]value{}
	}
	return &f, nil
}

// writeAtomic writes b to path with mode 0600 through a temporary file and
// a rename, so a reader sees the old file or the new one, never a part.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
