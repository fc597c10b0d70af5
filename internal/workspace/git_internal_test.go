package workspace

import "testing"

// TestGitError_NamesTheCommand: an error names git's command, not the
// settings given before it.
func TestGitError_NamesTheCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fetch", "--quiet"}, "git fetch: boom"},
		{[]string{"-c", "core.hooksPath=/dev/null", "update-ref", "refs/x", "abc"}, "git update-ref: boom"},
		{[]string{"-c", "a=1", "-c", "b=2", "merge"}, "git merge: boom"},
	} {
		if got := (&GitError{Args: c.args, Code: 1, Stderr: "boom\n"}).Error(); got != c.want {
			t.Errorf("Error() of %v = %q, want %q", c.args, got, c.want)
		}
	}
}
