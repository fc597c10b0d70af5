package workspace

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestCloseBranch_OnlyTheTicketsOwnBranch: closing a variant deletes only
// a branch Bonsai names for that ticket; main, another ticket's branch
// and a name that climbs out are refused before anything is touched.
func TestCloseBranch_OnlyTheTicketsOwnBranch(t *testing.T) {
	for _, c := range []struct {
		branch string
		own    bool
	}{
		{"bonsai/demo/3", true},
		{"bonsai/demo/3-greet-the-world", true},
		{BranchName("demo", 3, "Greet [variant 2 of demo#1: codex:openai/gpt-5]"), true},
		{"main", false},
		{"bonsai/demo/31-other", false},
		{"bonsai/demo/4-greet", false},
		{"bonsai/other/3-greet", false},
		{"bonsai/demo/3-../../main", false},
		{"bonsai/demo/3-Greet", false},
		{"bonsai/demo/3-", false},
	} {
		if got := ownBranch("demo", 3, c.branch); got != c.own {
			t.Errorf("ownBranch(demo, 3, %q) = %v, want %v", c.branch, got, c.own)
		}
	}
	p := &Provider{}
	err := p.CloseBranch(context.Background(), board.Project{Slug: "demo"}, 3, "main")
	if err == nil || !strings.Contains(err.Error(), `"main" is not a branch Bonsai named for the ticket`) {
		t.Errorf("CloseBranch(main) = %v, want refused before anything runs", err)
	}
}
