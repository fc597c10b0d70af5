package config

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// tighten takes group and other permissions off the directory p (which
// fi describes) and returns a warning saying so; "" when there was nothing
// to do. A directory shared on purpose — sticky like /tmp, or owned by
// another user — is left as it is, and the warning says how to fix it.
// Windows has no such mode bits.
func tighten(p string, fi fs.FileInfo) string {
	if runtime.GOOS == "windows" || !fi.IsDir() || fi.Mode().Perm()&0o077 == 0 {
		return ""
	}
	was := fi.Mode().Perm()
	if fi.Mode()&fs.ModeSticky != 0 || !ownedBySelf(fi) {
		return fmt.Sprintf("data directory %s can be read by other users (mode %04o); it is shared, so bonsai left it: use a private directory, or run 'chmod 700 %s'", p, was, p)
	}
	if err := os.Chmod(p, DirMode); err != nil {
		return fmt.Sprintf("data directory %s can be read by other users (mode %04o) and bonsai could not change that (%v): run 'chmod 700 %s'", p, was, err, p)
	}
	return fmt.Sprintf("data directory %s could be read by other users (mode %04o); changed it to %04o", p, was, DirMode)
}
