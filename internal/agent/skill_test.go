package agent_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
)

// TestLoadSkills_SpecialFiles gives LoadSkills a SKILL.md that is a FIFO
// with no writer and one that links to /dev/zero: reading either would
// never end. Both are skipped and the real skill is found.
func TestLoadSkills_SpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"fifo", "zero", "good"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo", "SKILL.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "good", "SKILL.md"), []byte("---\nname: good\ndescription: a real skill\n---\n"), 0o644)

	done := make(chan []agent.Skill, 1)
	go func() {
		sk, _ := agent.LoadSkills(os.DirFS(dir), "skills")
		done <- sk
	}()
	select {
	case sk := <-done:
		if len(sk) != 1 || sk[0].Name != "good" {
			t.Errorf("skills = %+v, want only good", sk)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadSkills did not return: it reads special files")
	}
}
