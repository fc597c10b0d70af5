package credentials

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// secretService keeps the key in the freedesktop Secret Service (GNOME
// Keyring, KWallet) through secret-tool, which reads the secret on its
// standard input.
type secretService struct{}

func (secretService) Kind() string { return KindSecretService }

func (secretService) Get(id string) ([]byte, error) {
	out, err := run("", "secret-tool", "lookup", "service", keyringService, "account", id)
	if err != nil {
		if ce, ok := err.(*commandError); ok && exitCode(err) == 1 && ce.msg == "" {
			return nil, fmt.Errorf("Secret Service, service %s, account %s: %w", keyringService, id, ErrNoKey)
		}
		return nil, fmt.Errorf("Secret Service: %w", err)
	}
	return decodeKey(out)
}

func (secretService) Put(id string, key []byte) error {
	if _, err := run(hex.EncodeToString(key), "secret-tool", "store", "--label=Bonsai credentials key",
		"service", keyringService, "account", id); err != nil {
		return fmt.Errorf("Secret Service: %w", err)
	}
	return nil
}

// secretServiceAnswers reports whether secret-tool exists and a session
// bus answers it: a lookup of a key that does not exist fails quietly
// (exit 1, nothing on standard error) only when the service is reachable.
func secretServiceAnswers() bool {
	if _, err := exec.LookPath("secret-tool"); err != nil {
		return false
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		rt := os.Getenv("XDG_RUNTIME_DIR")
		if rt == "" {
			return false
		}
		if _, err := os.Stat(filepath.Join(rt, "bus")); err != nil {
			return false
		}
	}
	_, err := run("", "secret-tool", "lookup", "service", keyringService, "account", "probe")
	if err == nil {
		return true
	}
	ce, ok := err.(*commandError)
	return ok && exitCode(err) == 1 && ce.msg == ""
}
