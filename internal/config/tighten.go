package config

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sort"
)

// tighten takes group and other permissions off the directory p (which
// fi describes) and returns a warning saying so; "" when there was nothing
// to do. A directory shared on purpose — sticky like /tmp, or owned by
// another user — is left as it is, and the warning says how to fix it.
// Windows has no such mode bits.
func tighten(p string, fi fs.FileInfo) string {
	if !fi.IsDir() || !othersCanReach(fi) {
		return ""
	}
	was := fi.Mode().Perm()
	if shared(fi) {
		return fmt.Sprintf("data directory %s can be read by other users (mode %04o); it is shared, so bonsai left it: use a private directory, or run 'chmod 700 %s'", p, was, p)
	}
	if err := os.Chmod(p, DirMode); err != nil {
		return fmt.Sprintf("data directory %s can be read by other users (mode %04o) and bonsai could not change that (%v): run 'chmod 700 %s'", p, was, err, p)
	}
	return fmt.Sprintf("data directory %s could be read by other users (mode %04o); changed it to %04o", p, was, DirMode)
}

// othersCanReach reports whether the mode of fi lets other users in: any group or
// other permission. Windows has no such mode bits.
func othersCanReach(fi fs.FileInfo) bool {
	return runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0
}

// shared reports a directory shared on purpose, which bonsai leaves as it
// is: sticky like /tmp, or owned by another user.
func shared(fi fs.FileInfo) bool {
	return fi.Mode()&fs.ModeSticky != 0 || !ownedBySelf(fi)
}

// Exposure is a path of the data directory whose mode lets other users in.
type Exposure struct {
	Path string
	// Mode is its permission bits; Want, DirMode or FileMode.
	Mode, Want fs.FileMode
	Dir        bool
	// Shared is a directory bonsai would leave as it is (see Init).
	Shared bool
}

// Exposed lists, without changing anything, the directories of the
// layout and the files directly in the data directory (config.json,
// bonsai.db, web-token, credentials.json, …) whose modes let other users
// in: the data directory itself first, then by path. Missing paths are
// not listed; on Windows nothing is. Init tightens the directories; files
// are left to the user.
func Exposed(d Dir) ([]Exposure, error) {
	var out []Exposure
	for _, sub := range layout {
		fi, err := os.Stat(d.Path(sub))
		if err != nil {
			continue
		}
		if othersCanReach(fi) {
			out = append(out, Exposure{Path: d.Path(sub), Mode: fi.Mode().Perm(), Want: DirMode, Dir: true, Shared: shared(fi)})
		}
	}
	entries, err := os.ReadDir(string(d))
	if err != nil {
		return out, err
	}
	var files []Exposure
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err == nil && othersCanReach(fi) {
			files = append(files, Exposure{Path: d.Path(e.Name()), Mode: fi.Mode().Perm(), Want: FileMode})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return append(out, files...), nil
}
