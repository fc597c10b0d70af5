package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// TestGrep_GoSearchSkipsHugeFiles: the Go search reads each file whole, so
// it passes over files larger than its limit and says which; a file that
// size named as the path is passed over too. The other files are searched.
func TestGrep_GoSearchSkipsHugeFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"small.txt":     "needle\n",
		"big/huge.log":  strings.Repeat("needle in a haystack\n", 10),
		"big/other.log": strings.Repeat("x", 300) + "\nneedle\n",
	})
	ex, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	grep := tools.Lookup(tools.New(ex, tools.WithMaxGrepFile(tools.Options{Search: tools.SearchGo}, 100)), "grep")
	run := func(args string) (string, tools.GrepDetails) {
		t.Helper()
		r, err := grep.Run(context.Background(), json.RawMessage(args), nil)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := r.Details.(tools.GrepDetails)
		return r.Text(), d
	}
	out, d := run(`{"pattern":"needle"}`)
	want := "small.txt:1: needle\n\n[Skipped 2 file(s) larger than 100 bytes without searching them: big/huge.log, big/other.log. Search them with bash (grep or rg).]"
	if out != want || d.Skipped != 2 || d.Matches != 1 {
		t.Errorf("grep = %q (%+v)\nwant %q", out, d, want)
	}
	out, d = run(`{"pattern":"needle","path":"big/huge.log"}`)
	if !strings.HasPrefix(out, "No matches found\n\n[Skipped 1 file(s) larger than 100 bytes without searching them: big/huge.log.") || d.Skipped != 1 {
		t.Errorf("grep on a huge file = %q (%+v)", out, d)
	}
}
