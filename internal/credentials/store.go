package credentials

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"
)

// Options configure a Store.
type Options struct {
	// Keyring chooses where the key of a new credentials.json goes:
	// KindFile, KindKeychain or KindSecretService; "" picks the OS
	// keychain when one answers, else the key file. An existing file's
	// key stays where the file says.
	Keyring string
	// Now stamps the values set; nil means time.Now.
	Now func() time.Time
}

// Store is the credentials of one data directory. Its methods may be
// called from several goroutines, and several processes may use the same
// directory: writes take a file lock.
type Store struct {
	dir  string
	opts Options

	mu  sync.Mutex
	key []byte // the key, once read; for keyID
	kid string
}

// Entry is what `credentials list` shows of a stored value: never the
// value itself.
type Entry struct {
	Name string `json:"name"`
	// Last4 is the value's last four characters; empty for values shorter
	// than 12 characters, where four would give too much away.
	Last4 string    `json:"last4,omitempty"`
	SetAt time.Time `json:"setAt"`
}

// Open returns the store of the data directory dir. It reads nothing
// until asked.
func Open(dir string, opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{dir: dir, opts: opts}
}

// Path is credentials.json.
func (s *Store) Path() string { return filepath.Join(s.dir, FileName) }

// Keyring describes where the key of credentials.json is kept ("the key
// file /x/credentials.key", "the macOS keychain"); "" when there is no
// file yet.
func (s *Store) Keyring() (string, error) {
	f, err := readFile(s.Path())
	if err != nil || f == nil {
		return "", err
	}
	switch f.Keyring {
	case KindKeychain:
		return "the macOS keychain (service " + keyringService + ", account " + f.KeyID + ")", nil
	case KindSecretService:
		return "the Secret Service (service " + keyringService + ", account " + f.KeyID + ")", nil
	}
	return "the key file " + keyFilePath(s.dir), nil
}

// List returns the stored entries, in Names' order. It needs no key.
func (s *Store) List() ([]Entry, error) {
	f, err := readFile(s.Path())
	if err != nil || f == nil {
		return nil, err
	}
	var out []Entry
	for _, n := range Names() {
		if v, ok := f.Values[n.Name]; ok {
			out = append(out, Entry{Name: n.Name, Last4: v.Last4, SetAt: v.SetAt})
		}
	}
	return out, nil
}

// Get returns the value stored under name; ok is false when there is
// none.
func (s *Store) Get(name string) (string, bool, error) {
	all, err := s.All()
	if err != nil {
		return "", false, err
	}
	v, ok := all[name]
	return v, ok, nil
}

// All returns every stored value by name, decrypted. A store with no file
// gives an empty map without reading any key.
func (s *Store) All() (map[string]string, error) {
	f, err := readFile(s.Path())
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	if f == nil || len(f.Values) == 0 {
		return out, nil
	}
	key, err := s.keyOf(f)
	if err != nil {
		return nil, err
	}
	for name, v := range f.Values {
		plain, err := unseal(key, name, v.Sealed)
		if err != nil {
			return nil, &FileError{Path: s.Path(), Err: fmt.Errorf("%s: %w", name, err)}
		}
		out[name] = plain
	}
	return out, nil
}

// Set stores secret under name, replacing what was there.
func (s *Store) Set(name, secret string) error {
	if _, err := Lookup(name); err != nil {
		return err
	}
	if err := checkSecret(secret); err != nil {
		return err
	}
	return s.update(func(f *fileFormat, key []byte) error {
		sealed, err := seal(key, name, secret)
		if err != nil {
			return err
		}
		f.Values[name] = value{Sealed: sealed, Last4: last4(secret), SetAt: s.opts.Now().UTC().Truncate(time.Second)}
		return nil
	})
}

// Remove deletes the value stored under name; removing one that is not
// there is an error saying so.
func (s *Store) Remove(name string) error {
	if _, err := Lookup(name); err != nil {
		return err
	}
	return s.update(func(f *fileFormat, _ []byte) error {
		if _, ok := f.Values[name]; !ok {
			return &NotStoredError{Name: name}
		}
		delete(f.Values, name)
		return nil
	})
}

// NotStoredError is the error of removing a name that holds no value.
type NotStoredError struct{ Name string }

func (e *NotStoredError) Error() string { return fmt.Sprintf("no credential is stored for %s", e.Name) }

// update reads credentials.json under the file lock, creating it and its
// key when missing, applies change and writes the file back.
func (s *Store) update(change func(*fileFormat, []byte) error) error {
	lock := flock.New(filepath.Join(s.dir, "credentials.lock"))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", s.Path(), err)
	}
	defer lock.Unlock()
	f, err := readFile(s.Path())
	if err != nil {
		return err
	}
	if f == nil {
		if f, err = s.create(); err != nil {
			return err
		}
	}
	key, err := s.keyOf(f)
	if err != nil {
		return err
	}
	if err := change(f, key); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.Path(), append(b, '\n'))
}

// create makes a new key in the chosen keyring and returns the empty file
// that names it.
func (s *Store) create() (*fileFormat, error) {
	kr, err := chooseKeyring(s.opts.Keyring, s.dir)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 8)
	key := make([]byte, keySize)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f := &fileFormat{Bonsai: fileMagic, Version: formatVersion, Keyring: kr.Kind(),
		KeyID: "bonsai-" + hex.EncodeToString(id), Values: map[string]value{}}
	if err := kr.Put(f.KeyID, key); err != nil {
		if s.opts.Keyring != "" || kr.Kind() == KindFile {
			return nil, fmt.Errorf("store the credentials key: %w", err)
		}
		// A keychain that answered but refuses (locked, no session):
		// the key file, as on a machine without one.
		kr = keyFile{path: keyFilePath(s.dir)}
		f.Keyring = kr.Kind()
		if err := kr.Put(f.KeyID, key); err != nil {
			return nil, fmt.Errorf("store the credentials key: %w", err)
		}
	}
	s.mu.Lock()
	s.key, s.kid = key, f.KeyID
	s.mu.Unlock()
	return f, nil
}

// keyOf returns the key f names, from its keyring (once per Store).
func (s *Store) keyOf(f *fileFormat) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil && s.kid == f.KeyID {
		return s.key, nil
	}
	kr, err := keyringFor(f.Keyring, s.dir)
	if err != nil {
		return nil, &FileError{Path: s.Path(), Err: err}
	}
	key, err := kr.Get(f.KeyID)
	if errors.Is(err, ErrNoKey) {
		return nil, fmt.Errorf("the key of %s is gone (%v): the stored credentials cannot be read; restore the key, or move %s aside and set the keys again with 'bonsai credentials set'", s.Path(), err, s.Path())
	}
	if err != nil {
		return nil, fmt.Errorf("read the key of %s: %w", s.Path(), err)
	}
	s.key, s.kid = key, f.KeyID
	return key, nil
}

// checkSecret refuses values that cannot be a key or token.
func checkSecret(secret string) error {
	switch {
	case secret == "":
		return errors.New("the key is empty")
	case !utf8.ValidString(secret):
		return errors.New("the key is not valid UTF-8 text")
	case slices.ContainsFunc([]rune(secret), func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errors.New("the key holds a control character (a line break or tab?): paste the key alone")
	case len(secret) > 16<<10:
		return errors.New("the key is longer than 16 KiB: is it the right text?")
	}
	return nil
}

// last4 returns the last four characters of a secret long enough to show
// them.
func last4(secret string) string {
	r := []rune(secret)
	if len(r) < 12 {
		return ""
	}
	return string(r[len(r)-4:])
}
