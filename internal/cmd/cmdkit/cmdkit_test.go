package cmdkit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/config"
)

// tree is a root with one group, `ticket`, holding `show` with a
// --criterion and a --priority flag, as the families build theirs.
func tree() (*cobra.Command, *int) {
	root := &cobra.Command{Use: "bonsai", SilenceErrors: true, SilenceUsage: true}
	group := &cobra.Command{Use: "ticket"}
	p := 2
	show := &cobra.Command{Use: "show", Args: ExactArgs("<slug>#<n>"), RunE: func(*cobra.Command, []string) error { return nil }}
	show.Flags().StringArray("criterion", nil, "")
	AddPriorityFlag(show.Flags(), &p)
	group.AddCommand(show)
	root.AddCommand(group)
	root.SetFlagErrorFunc(ExplainFlagError)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	RefuseUnknownSubcommands(root)
	return root, &p
}

func run(args ...string) (int, error) {
	root, p := tree()
	root.SetArgs(args)
	err := root.Execute()
	return *p, err
}

// TestTree: the conventions every family's commands get through the
// root: a typo of a subcommand or flag is refused with the one meant,
// a missing or extra argument is named, --priority takes a name.
func TestTree(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ticket", "shwo"}, `unknown command "shwo" for "bonsai ticket"; did you mean "show"?`},
		{[]string{"ticket", "show"}, "missing <slug>#<n>"},
		{[]string{"ticket", "show", "demo", "1"}, "2 arguments given, but ticket show takes 1 (<slug>#<n>); put text that has spaces in quotes"},
		{[]string{"ticket", "show", "demo#1", "--criteria", "x"}, "unknown flag: --criteria; did you mean --criterion?"},
		{[]string{"ticket", "show", "demo#1", "-x"}, "to pass an argument that starts with -, put -- before it"},
		{[]string{"ticket", "show", "demo#1", "--priority", "soon"}, "use 0 (urgent), 1 (high), 2 (medium), 3 (low) or 4 (none), as a number or a name"},
	} {
		if _, err := run(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
	if p, err := run("ticket", "show", "demo#1", "--priority", "Urgent"); err != nil || p != 0 {
		t.Errorf("--priority Urgent: priority %d, error %v; want 0", p, err)
	}
	if _, err := run("ticket"); err != nil {
		t.Errorf("a group without a subcommand prints its help; got %v", err)
	}
}

// TestUsageError: a usage error is found through wrapping, which is how
// cli maps it to exit code 2 whichever family returned it.
func TestUsageError(t *testing.T) {
	t.Parallel()
	err := Usagef("--n %d is negative", -1)
	var ue *UsageError
	if w := errors.Join(errors.New("x"), err); !errors.As(w, &ue) || ue.Error() != "--n -1 is negative" {
		t.Fatalf("errors.As = %v, want the usage error", w)
	}
	if got := PlainFlagGroupError(errors.New(`required flag(s) "repo" not set`)); got != "--repo is required" {
		t.Errorf("PlainFlagGroupError = %q", got)
	}
	if got := PlainFlagGroupError(errors.New(`if any flags in the group [cron every at] are set none of the others can be; [cron every] were all set`)); got != "--cron and --every cannot be used together" {
		t.Errorf("PlainFlagGroupError = %q", got)
	}
}

// TestCreds: the environment wins over the stored credential; a lookup
// creates no data directory; config.json's base URL answers its
// variable.
func TestCreds(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	env := map[string]string{"BONSAI_DATA_DIR": data, "OPENAI_API_KEY": "sk-env"}
	c := &Creds{Env: func(k string) string { return env[k] }, Warn: io.Discard, Dir: func() config.Dir { return "" }}
	if got := c.Lookup("OPENAI_API_KEY"); got != "sk-env" {
		t.Errorf("OPENAI_API_KEY = %q, want the environment's", got)
	}
	if got := c.Lookup("ANTHROPIC_API_KEY"); got != "" {
		t.Errorf("ANTHROPIC_API_KEY = %q with nothing stored", got)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("a lookup created the data directory (%v)", err)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "config.json"), []byte(`{"providers": {"ollama": {"baseURL": "http://gpu:11434/v1"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := c.Lookup("OLLAMA_BASE_URL"); got != "http://gpu:11434/v1" {
		t.Errorf("OLLAMA_BASE_URL = %q, want config.json's", got)
	}
}
