package cmdkit

import (
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/config"
)

// DataDirError says where a data directory that cannot be created came
// from, so that a stray BONSAI_DATA_DIR is easy to spot.
func DataDirError(getenv func(string) string, err error) error {
	if v := getenv("BONSAI_DATA_DIR"); v != "" {
		return fmt.Errorf("%w (set by BONSAI_DATA_DIR=%s)", err, v)
	}
	return err
}

// ConfigFix says how to repair config.json after config.Load's error;
// "" when there is nothing to repair or the error is not about the
// file's contents.
func ConfigFix(err error) string {
	var fe *config.FileError
	switch {
	case errors.As(err, &fe) && fe.Key != "" && knownKey(fe.Key):
		return fmt.Sprintf("'bonsai config set %s <value>' repairs it", fe.Key)
	case errors.As(err, &fe) && fe.Key != "":
		return fmt.Sprintf("rename or remove %s in the file", fe.Key)
	case errors.As(err, &fe):
		return "edit the file, or move it aside and run 'bonsai init' to write the defaults"
	}
	return ""
}

// knownKey reports whether key is a setting 'bonsai config set' can change.
func knownKey(key string) bool {
	_, err := config.Default().Get(key)
	return err == nil
}
