package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bonsai-run/bonsai/internal/config"
)

// DataDir is the check of the data directory: it exists, this user can
// write it, and other users can neither enter it nor read what Bonsai
// wrote there (config.Exposed; the web token has its own check).
func DataDir(d config.Dir) Check {
	c := Check{Name: "data directory"}
	fi, err := os.Stat(string(d))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail, c.Fix = Fail, fmt.Sprintf("%s does not exist", d), "bonsai init"
		return c
	case err != nil:
		c.Status, c.Detail, c.Fix = Fail, err.Error(), "check the path, or set BONSAI_DATA_DIR to a directory of yours"
		return c
	case !fi.IsDir():
		c.Status, c.Detail, c.Fix = Fail, fmt.Sprintf("%s is not a directory", d), "move it aside and run 'bonsai init', or set BONSAI_DATA_DIR"
		return c
	}
	f, err := os.CreateTemp(string(d), ".doctor*")
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("cannot write in %s: %v", d, err)
		c.Fix = fmt.Sprintf("make it yours: chown -R $USER %s", d)
		return c
	}
	f.Close()
	os.Remove(f.Name())
	exp, err := config.Exposed(d)
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, err.Error(), fmt.Sprintf("make it readable by you: chmod 700 %s", d)
		return c
	}
	var dirs, files, shown []string
	top := false
	for _, e := range exp {
		if e.Path == d.WebTokenFile() {
			continue
		}
		shown = append(shown, fmt.Sprintf("%s %04o", e.Path, e.Mode))
		switch {
		case e.Dir && e.Path == string(d):
			top = true
			dirs = append(dirs, e.Path)
		case e.Dir:
			dirs = append(dirs, e.Path)
		default:
			files = append(files, e.Path)
		}
	}
	if len(shown) == 0 {
		c.Status, c.Detail = OK, fmt.Sprintf("%s is private", d)
		return c
	}
	var fix []string
	if len(dirs) > 0 {
		fix = append(fix, "chmod 700 "+strings.Join(dirs, " "))
	}
	if len(files) > 0 {
		fix = append(fix, "chmod 600 "+strings.Join(files, " "))
	}
	c.Fix = strings.Join(fix, "; ")
	c.Detail = "other users can reach " + strings.Join(shown, ", ")
	c.Status = Warn
	if top {
		// Anyone may enter it: the board, transcripts and stored keys are
		// as open as the files below allow.
		c.Status = Fail
	}
	return c
}

// WebToken is the check of the web UI's secret: present, not empty, and
// readable by this user alone.
func WebToken(d config.Dir) Check {
	c := Check{Name: "web token"}
	p := d.WebTokenFile()
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail, c.Fix = Fail, p+" is missing: the web UI cannot sign anyone in", "bonsai init (writes a new token)"
	case err != nil:
		c.Status, c.Detail, c.Fix = Fail, err.Error(), "chmod 600 "+p
	case fi.Size() == 0:
		c.Status, c.Detail, c.Fix = Fail, p+" is empty", fmt.Sprintf("rm %s && bonsai init (writes a new token)", p)
	case exposed(d, p):
		c.Status, c.Detail = Fail, fmt.Sprintf("%s has mode %04o: other users can read the web UI's secret", p, fi.Mode().Perm())
		c.Fix = fmt.Sprintf("chmod 600 %s, then replace the token (rm %s && bonsai init) if others may have read it", p, p)
	default:
		c.Status, c.Detail = OK, p+" is present and private"
	}
	return c
}

// exposed reports whether config.Exposed lists the file p of d.
func exposed(d config.Dir, p string) bool {
	exp, _ := config.Exposed(d)
	for _, e := range exp {
		if e.Path == p {
			return true
		}
	}
	return false
}
