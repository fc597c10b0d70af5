package policy

import (
	"path"
	"regexp"
	"strings"
)

// homeMark stands for the home directory when Config.HomeDir is empty.
const homeMark = "/\x00home"

// varRef matches a parameter as words render it: $NAME.
var varRef = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)

// expandHome resolves a leading ~ or $HOME to the home directory.
func (c Config) expandHome(p string) string {
	home := c.HomeDir
	if home == "" {
		home = homeMark
	}
	for _, pre := range []string{"~", "$HOME"} {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return home + p[len(pre):]
		}
	}
	return p
}

// touchesData reports whether w names a path under the data directory or
// under ~/.bonsai, also as the value of --opt=value or NAME=value.
func (j *judge) touchesData(w word) bool {
	cands := []string{w.text}
	if _, v, ok := strings.Cut(w.text, "="); ok {
		cands = append(cands, v)
	}
	for _, c := range cands {
		if strings.Contains(c, "$BONSAI_DATA_DIR") || strings.Contains(c, "${BONSAI_DATA_DIR") {
			return true
		}
		p := j.cfg.expandHome(c)
		if !strings.HasPrefix(p, "/") {
			continue
		}
		p = path.Clean(p)
		if j.inWorkspace(p) {
			continue // a heartbeat's worktree lives in the data directory
		}
		home := j.cfg.HomeDir
		if home == "" {
			home = homeMark
		}
		if under(p, path.Join(home, ".bonsai")) || under(p, path.Join(homeMark, ".bonsai")) ||
			(j.cfg.DataDir != "" && under(p, path.Clean(j.cfg.DataDir))) {
			return true
		}
	}
	return false
}

// inWorkspace reports whether the clean absolute path p is the workspace
// root or below it, literally: a glob in the root's part cannot match.
func (j *judge) inWorkspace(p string) bool {
	if j.cfg.Workspace == "" {
		return false
	}
	ws := path.Clean(j.cfg.Workspace)
	return p == ws || strings.HasPrefix(p, strings.TrimSuffix(ws, "/")+"/")
}

// under reports whether p, which may hold glob patterns, can name dir or a path below it.
func under(p, dir string) bool {
	pc := strings.Split(strings.Trim(p, "/"), "/")
	dc := strings.Split(strings.Trim(dir, "/"), "/")
	if len(pc) < len(dc) {
		return false // an ancestor of dir (a known limit: grep -r ~ reads it)
	}
	for i, d := range dc {
		if !componentMatch(pc[i], d) {
			return false
		}
	}
	return true
}

// componentMatch matches one path component, globs included; like the shell,
// a pattern not starting with a dot does not match a dot name.
func componentMatch(pat, name string) bool {
	if pat == name {
		return true
	}
	if !strings.ContainsAny(pat, "*?[") {
		return false
	}
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
		return false
	}
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// systemDirs are the top-level directories rm -r may never remove.
var systemDirs = set("bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "opt", "proc", "root",
	"run", "sbin", "srv", "sys", "usr", "var", "tmp", "mnt", "media", "snap", "Users", "System",
	"Library", "Applications", "Volumes", "private")

// recursiveRemoval reports whether rm-style args remove recursively a path
// that must never go: /, /*, a top-level directory, the home, the workspace,
// ., .., * or the data directory's parent.
func recursiveRemoval(args []word, cfg Config) bool {
	recursive, endOpts := false, false
	var targets []word
	for _, a := range args {
		t := a.text
		switch {
		case endOpts:
			targets = append(targets, a)
		case t == "--":
			endOpts = true
		case t == "--recursive":
			recursive = true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			if strings.ContainsAny(t, "rR") {
				recursive = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if !recursive {
		return false
	}
	for _, t := range targets {
		if fatalTarget(t, cfg) {
			return true
		}
	}
	return false
}

func fatalTarget(w word, cfg Config) bool {
	p := cfg.expandHome(w.text)
	if !w.lit {
		// An unset variable expands to nothing: "$DIR/" is then "/".
		p = varRef.ReplaceAllString(p, "")
	}
	if p == "" {
		return false
	}
	switch p {
	case "*", ".*", "./*", "../*", "./", "../":
		return true
	}
	clean := path.Clean(p)
	if clean == "." || clean == ".." || clean == "/" {
		return true
	}
	home := cfg.HomeDir
	if home == "" {
		home = homeMark
	}
	for _, root := range []string{path.Clean(home), homeMark, path.Clean(cfg.Workspace)} {
		if root != "." && (clean == root || clean == root+"/*") {
			return true
		}
	}
	if strings.HasPrefix(clean, "/") && !strings.Contains(clean[1:], "/") {
		top := clean[1:]
		return systemDirs[top] || strings.ContainsAny(top, "*?[{")
	}
	return false
}
