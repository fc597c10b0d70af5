package autostart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Find returns the heartbeat service of this machine for the data
// directory dataDir: the timer, or the worker service when that is the
// one installed. home is the user's home directory; "" asks the system.
func Find(home, dataDir string) (Service, error) {
	home, err := homeDir(home)
	if err != nil {
		return Service{}, err
	}
	p, err := Current(home, dataDir)
	if err != nil {
		return Service{}, err
	}
	if w, err := CurrentWorker(home, dataDir); err == nil && w.IsWorker(dataDir) {
		p = w
	}
	return Service{Platform: p, DataDir: dataDir, Run: Exec}, nil
}

// FindWorker returns the worker service of this machine (`bonsai worker`
// kept running), or why there is none.
func FindWorker(home, dataDir string) (Service, error) {
	home, err := homeDir(home)
	if err != nil {
		return Service{}, err
	}
	p, err := CurrentWorker(home, dataDir)
	if err != nil {
		return Service{}, err
	}
	return Service{Platform: p, DataDir: dataDir, Run: Exec}, nil
}

func homeDir(home string) (string, error) {
	if home != "" {
		return home, nil
	}
	return os.UserHomeDir()
}

// Replace installs svc with spec on a machine where installed is the
// service found (Find); worker reports that svc is the worker service.
// One machine runs the timer or the worker, never both, so an installed
// service of the other kind is removed first.
func Replace(ctx context.Context, installed, svc Service, spec Spec, worker bool) ([]File, error) {
	if installed.Platform.IsWorker(spec.DataDir) != worker && installed.Installed() {
		if err := installed.Uninstall(ctx); err != nil {
			return nil, fmt.Errorf("replace the installed service: %w", err)
		}
	}
	files, err := svc.Install(ctx, spec)
	if err != nil {
		if strings.Contains(err.Error(), "Failed to connect to bus") {
			return nil, fmt.Errorf("install the heartbeat service: %w; systemctl --user needs a user session (log in as this user, or run 'loginctl enable-linger'); without one, run 'bonsai up' or fire 'bonsai heartbeat' from cron", err)
		}
		return nil, fmt.Errorf("install the heartbeat service: %w", err)
	}
	return files, nil
}

// WindowsUser is the account a Windows worker task starts at the logon
// of, DOMAIN\name from the environment Windows sets; empty elsewhere.
func WindowsUser(env func(string) string) string {
	name, domain := env("USERNAME"), env("USERDOMAIN")
	if name == "" || domain == "" {
		return name
	}
	return domain + `\` + name
}

// ErrTemporaryBinary is the error of [InstalledBinary] for a `go run`
// build.
var ErrTemporaryBinary = errors.New("this bonsai is a temporary 'go run' build; install it first (go install ./cmd/bonsai) or pass --binary")

// InstalledBinary returns the absolute path of the running binary,
// refusing the temporary binaries of `go run`, which vanish when it
// exits.
func InstalledBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", ErrTemporaryBinary
	}
	return exe, nil
}

// LastLines returns the last n lines of b, ending in a newline: the end
// of a log for `bonsai service logs`.
func LastLines(b []byte, n int) []byte {
	b = bytes.TrimRight(b, "\n")
	i := len(b)
	for ; n > 0 && i > 0; n-- {
		i = bytes.LastIndexByte(b[:i], '\n')
		if i < 0 {
			i = 0
			break
		}
	}
	if i > 0 {
		i++ // skip the newline itself
	}
	return append(b[i:len(b):len(b)], '\n')
}
