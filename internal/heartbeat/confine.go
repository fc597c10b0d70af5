package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// maxPromptFile is the largest worktree file the prompt builder reads
// (AGENTS.md, CLAUDE.md, SOUL.md); the prompt keeps far less of it.
const maxPromptFile = 4 << 20

// cappedReader reads worktree files for the prompt, refusing files over
// maxPromptFile before reading them: the executor reads a file whole, and
// an agent's `truncate -s 20G AGENTS.md` would make every later beat run
// out of memory.
type cappedReader struct{ ex executor.Executor }

// ReadFile implements agent.FileReader.
func (c cappedReader) ReadFile(ctx context.Context, name string) ([]byte, error) {
	st, err := c.ex.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if st.Size > maxPromptFile {
		return nil, fmt.Errorf("%s is %d MiB, over the %d MiB a prompt file may have", name, st.Size>>20, maxPromptFile>>20)
	}
	return c.ex.ReadFile(ctx, name)
}

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
