package autostart

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RunFunc runs a command and returns its combined output.
type RunFunc func(ctx context.Context, argv []string) ([]byte, error)

// Exec runs commands with os/exec. Service management is the runtime's own
// work, not the agent's, so it does not go through an Executor.
func Exec(ctx context.Context, argv []string) ([]byte, error) {
	return exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
}

// Service installs and removes the heartbeat service on one platform.
type Service struct {
	Platform Platform
	DataDir  string
	Run      RunFunc
}

// Status describes the installed service.
type Status struct {
	Installed bool     `json:"installed"`
	Manager   string   `json:"manager"`
	Files     []string `json:"files"`
	// Detail is what the service manager says of the service, when it can.
	Detail string `json:"detail,omitempty"`
}

// Installed reports whether the service's files are in place. It runs no
// command, so `bonsai up` can ask on every start.
func (s Service) Installed() bool {
	for _, p := range s.Platform.Paths(s.DataDir) {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

// Install writes the service's files and loads it. A failed load removes
// the files again, so a half-installed service is never reported as
// installed.
func (s Service) Install(ctx context.Context, spec Spec) ([]File, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	files := s.Platform.Files(spec)
	for _, f := range files {
		if err := writeFile(f); err != nil {
			s.removeFiles(files)
			return nil, err
		}
	}
	for _, argv := range s.Platform.Load {
		if out, err := s.Run(ctx, argv); err != nil {
			s.removeFiles(files)
			return nil, commandError(argv, out, err)
		}
	}
	return files, nil
}

// Uninstall unloads the service and removes its files. Unloading a service
// the manager does not know is not an error: the files are removed anyway.
func (s Service) Uninstall(ctx context.Context) error {
	if !s.Installed() {
		return errors.New("the heartbeat service is not installed")
	}
	for _, argv := range s.Platform.Unload {
		s.Run(ctx, argv) // best effort: the files go either way
	}
	var errs []error
	for _, p := range s.Platform.Paths(s.DataDir) {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if s.Platform.Name == "systemd" {
		s.Run(ctx, []string{"systemctl", "--user", "daemon-reload"})
	}
	return errors.Join(errs...)
}

// Status describes the service: its files and what the service manager says.
func (s Service) Status(ctx context.Context) Status {
	st := Status{Installed: s.Installed(), Manager: s.Platform.Name, Files: s.Platform.Paths(s.DataDir)}
	if st.Installed && len(s.Platform.Status) > 0 {
		out, err := s.Run(ctx, s.Platform.Status)
		st.Detail = strings.TrimSpace(string(out))
		if err != nil && st.Detail == "" {
			st.Detail = err.Error()
		}
	}
	return st
}

func (s Service) removeFiles(files []File) {
	for _, f := range files {
		os.Remove(f.Path)
	}
}

// writeFile writes f atomically, creating its directory.
func writeFile(f File) error {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	_, err = tmp.Write(f.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.Path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	return nil
}

func commandError(argv []string, out []byte, err error) error {
	msg := strings.TrimSpace(string(out))
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("%s: %s", strings.Join(argv, " "), msg)
}
