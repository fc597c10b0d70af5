package credentials

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Keyring keeps the key that seals the values of credentials.json, under
// an id the file records.
type Keyring interface {
	// Kind names the keyring in credentials.json ("file", "keychain",
	// "secret-service").
	Kind() string
	// Get returns the key stored under id; an error wrapping ErrNoKey
	// when there is none.
	Get(id string) ([]byte, error)
	// Put stores key under id.
	Put(id string, key []byte) error
}

// ErrNoKey is returned when a keyring holds no key under an id.
var ErrNoKey = errors.New("no key")

// The keyring kinds, as Options.Keyring and credentials.json name them.
const (
	KindFile          = "file"
	KindKeychain      = "keychain"
	KindSecretService = "secret-service"
)

// keyringService is the service name of the key in the OS keychains.
const keyringService = "bonsai"

// commandTimeout bounds one call of security or secret-tool: a keychain
// that waits for a person to unlock it must not hang a beat forever.
const commandTimeout = 30 * time.Second

// keyringFor returns the keyring of kind for the data directory dir.
func keyringFor(kind, dir string) (Keyring, error) {
	switch kind {
	case KindFile:
		return keyFile{path: keyFilePath(dir)}, nil
	case KindKeychain:
		return keychain{}, nil
	case KindSecretService:
		return secretService{}, nil
	}
	return nil, fmt.Errorf("unknown keyring %q (known: %s, %s, %s)", kind, KindFile, KindKeychain, KindSecretService)
}

// chooseKeyring picks the keyring for a new credentials.json: want when
// given, else the OS keychain when one answers, else the key file.
func chooseKeyring(want, dir string) (Keyring, error) {
	if want != "" {
		return keyringFor(want, dir)
	}
	switch runtime.GOOS {
	case "darwin":
		if _, err := exec.LookPath("security"); err == nil {
			return keychain{}, nil
		}
	case "linux", "freebsd", "openbsd", "netbsd":
		if secretServiceAnswers() {
			return secretService{}, nil
		}
	}
	return keyFile{path: keyFilePath(dir)}, nil
}

// run runs a keyring command with stdin, returning its standard output,
// and its standard error in the error.
func run(stdin string, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if ctx.Err() != nil {
			msg = fmt.Sprintf("no answer in %s (is the keychain locked?)", commandTimeout)
		}
		return out.Bytes(), &commandError{argv: argv[:2], msg: msg, err: err}
	}
	return out.Bytes(), nil
}

// commandError is a keyring command that failed.
type commandError struct {
	argv []string
	msg  string
	err  error
}

func (e *commandError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("%s: %v", strings.Join(e.argv, " "), e.err)
	}
	return fmt.Sprintf("%s: %s", strings.Join(e.argv, " "), e.msg)
}

func (e *commandError) Unwrap() error { return e.err }

// exitCode returns the exit code of a failed command, or -1.
func exitCode(err error) int {
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return ee.ExitCode()
	}
	return -1
}

// decodeKey reads a hex key as the keyrings store it.
func decodeKey(b []byte) ([]byte, error) {
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) != keySize {
		return nil, errors.New("the stored key is not 64 hexadecimal digits")
	}
	return k, nil
}
