package heartbeat

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/agent"
)

// errNotRegular refuses a device, a FIFO or a directory where a text file
// is expected: reading /dev/zero would never end.
var errNotRegular = errors.New("not a regular file")

// readInRoot reads at most limit bytes of the regular file name inside dir,
// refusing symlinks that lead out of dir. Repository contents are untrusted:
// a committed symlink must not put a host file into the prompt.
func readInRoot(dir, name string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Stat before opening: opening a FIFO blocks until a writer comes.
	fi, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// repoSkills loads the skills of the worktree's .bonsai/skills without
// following symlinks out of the worktree, neither the directory itself nor
// the SKILL.md files below it.
func repoSkills(worktree string) []agent.Skill {
	root, err := os.OpenRoot(worktree)
	if err != nil {
		return nil
	}
	defer root.Close()
	sub, err := root.OpenRoot(filepath.Join(".bonsai", "skills"))
	if err != nil {
		return nil
	}
	defer sub.Close()
	skills, _ := agent.LoadSkills(sub.FS(), ".bonsai/skills")
	return skills
}
