package credentials

import (
	"encoding/hex"
	"fmt"
)

// keychain keeps the key in the macOS login keychain through the security
// command. The key goes to security on its standard input (security -i),
// never on a command line another user could read.
type keychain struct{}

func (keychain) Kind() string { return KindKeychain }

func (keychain) Get(id string) ([]byte, error) {
	out, err := run("", "security", "find-generic-password", "-s", keyringService, "-a", id, "-w")
	if err != nil {
		if exitCode(err) == 44 { // errSecItemNotFound
			return nil, fmt.Errorf("macOS keychain, service %s, account %s: %w", keyringService, id, ErrNoKey)
		}
		return nil, fmt.Errorf("macOS keychain: %w", err)
	}
	return decodeKey(out)
}

func (keychain) Put(id string, key []byte) error {
	cmd := fmt.Sprintf("add-generic-password -U -s %s -a %s -l %q -w %s\n",
		keyringService, id, "Bonsai credentials key", hex.EncodeToString(key))
	if _, err := run(cmd, "security", "-i"); err != nil {
		return fmt.Errorf("macOS keychain: %w", err)
	}
	return nil
}
