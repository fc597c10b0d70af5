package workspace

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// maxLooseRef bounds the loose ref file read: a full object name (SHA-256's
// 64 hex digits) and its newline.
const maxLooseRef = 65

// looseTip reports whether the clone of project slug holds branch as a
// loose ref file naming commit want, read without git (readLooseRef). It
// answers false whenever git might read the branch elsewhere: a clone
// whose layout the host refuses (commondir, alternates), refs kept in a
// reftable, a file that is not exactly the object name and a newline.
// False is "ask git", never "the branch moved".
func (p *Provider) looseTip(slug, branch, want string) bool {
	gitDir := filepath.Join(p.opts.Projects, slug, ".git")
	if checkCloneLayout(slug, gitDir) != nil {
		return false
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "reftable")); !os.IsNotExist(err) {
		return false
	}
	got, ok := strings.CutSuffix(readLooseRef(p.opts.Projects, filepath.Join(slug, ".git", "refs", "heads", filepath.FromSlash(branch))), "\n")
	return ok && got == want && board.IsObjectName(got)
}
