package executor

import (
	"os"
	"slices"
	"testing"
)

// CleanEnv remembers its answers (envMemo) without letting them leak: a
// caller that changes the slice it got does not change the next
// caller's, and a parent environment or extra list that changed gets a
// fresh answer.
func TestCleanEnv_Memo(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=secret", "FOO=1", "BAR=2"}
	extra := []string{"FOO"}
	want := []string{"PATH=/bin", "HOME=/h", "FOO=1", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat"}
	first := CleanEnv(parent, extra)
	if !slices.Equal(first, want) {
		t.Fatalf("CleanEnv = %q, want %q", first, want)
	}
	first[0] = "PATH=/changed"
	_ = append(first[:2], "INJECTED=1")
	if again := CleanEnv(slices.Clone(parent), slices.Clone(extra)); !slices.Equal(again, want) {
		t.Errorf("after a caller changed its answer, CleanEnv = %q, want %q", again, want)
	}
	changed := append(slices.Clone(parent), "LANG=C")
	if got := CleanEnv(changed, extra); !slices.Contains(got, "LANG=C") {
		t.Errorf("a parent with LANG added: CleanEnv = %q, want LANG=C in it", got)
	}
	if got := CleanEnv(parent, []string{"BAR"}); !slices.Contains(got, "BAR=2") || slices.Contains(got, "FOO=1") {
		t.Errorf("extra BAR instead of FOO: CleanEnv = %q", got)
	}
	if got := CleanEnv(parent, []string{"FOO\x00BAR"}); slices.Contains(got, "FOO=1") || slices.Contains(got, "BAR=2") {
		t.Errorf("extra %q matched FOO or BAR: %q", "FOO\x00BAR", got)
	}
	if got := CleanEnv(parent, []string{"FOO", "BAR"}); !slices.Contains(got, "FOO=1") || !slices.Contains(got, "BAR=2") {
		t.Errorf("extra FOO and BAR (after the same names joined by a NUL): CleanEnv = %q", got)
	}
}

// BenchmarkCleanEnv is one command's environment from this process's,
// as every command of an executor asks for it.
func BenchmarkCleanEnv(b *testing.B) {
	extra := []string{"GOFLAGS", "NPM_CONFIG_*"}
	for b.Loop() {
		CleanEnv(os.Environ(), extra)
	}
}
