package heartbeat_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestSchedule_PreCheckPlantsNothingTheHostRuns is issue 25's finding 1
// for schedules: a pre-check writes, in the checkout it runs in, a .git
// file naming a git directory of its own whose config runs a program
// (core.fsmonitor), a link to a host directory, and a directory nobody
// may read. The next firing's checkout must run none of it, follow no
// link and leave nothing behind.
func TestSchedule_PreCheckPlantsNothingTheHostRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.clock(monday9)
	e.project("demo", nil)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	program := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(program, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "host")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plant := `set -e
common=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
rm -rf .evil
if [ -n "$common" ]; then git clone -q --mirror "$common" .evil; else git init -q --bare .evil; fi
git --git-dir=.evil config core.bare false
git --git-dir=.evil config core.worktree "$PWD"
git --git-dir=.evil config core.fsmonitor ` + program + `
git --git-dir=.evil config core.hooksPath "$PWD/.evil-hooks"
mkdir -p .evil-hooks && for h in post-checkout reference-transaction pre-commit; do printf '#!/bin/sh\n` + program + ` hook\n' > .evil-hooks/$h; chmod +x .evil-hooks/$h; done
rm -f .git; printf 'gitdir: %s/.evil\n' "$PWD" > .git
ln -sfn ` + target + ` link
mkdir -p locked && touch locked/f && chmod 0 locked
echo '{"wake": false}'`
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "planter", NextFire: monday9, PreCheck: plant})
	for i := range 3 {
		rep := e.beat()
		if len(rep.Fired) != 1 || rep.Fired[0].Outcome != board.FiringAsleep {
			t.Errorf("firing %d: %+v", i, rep.Fired)
		}
		c.set(monday9.Add(time.Duration(i+1) * 24 * time.Hour))
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the host ran what the pre-check planted:\n%s", b)
	}
	if b, err := os.ReadFile(filepath.Join(target, "keep.txt")); err != nil || string(b) != "mine\n" {
		t.Errorf("the linked host directory was changed: %q, %v", b, err)
	}
	des, _ := os.ReadDir(filepath.Join(e.data, "worktrees", "demo"))
	var left []string
	for _, de := range des {
		left = append(left, de.Name())
	}
	if len(left) != 0 {
		t.Errorf("checkouts left behind: %s", strings.Join(left, ", "))
	}
}
