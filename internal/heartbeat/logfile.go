package heartbeat

import (
	"fmt"
	"os"
	"path/filepath"
)

// Log rotation: heartbeat.log is renamed to heartbeat.log.1 (replacing
// the previous one) once it passes maxLogSize.
const maxLogSize = 10 << 20

// OpenLog opens dir/name for appending, rotating it first when it is too
// big. The caller closes the file.
func OpenLog(dir, name string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	path := filepath.Join(dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogSize {
		if err := os.Rename(path, path+".1"); err != nil {
			return nil, fmt.Errorf("rotate log: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return f, nil
}
