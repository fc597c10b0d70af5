package cli_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
)

// fakeForges remembers the fake forge each script started, by work dir.
var (
	forgeMu    sync.Mutex
	fakeForges = map[string]*forgetest.Server{}
)

// cmdFakeForge runs a fake forge for a script (internal/forge/forgetest)
// and does on it what a reviewer does:
//
//	fakeforge github|gitlab|gitea <owner> <repo>   start it with a repository;
//	    sets FORGE_REMOTE, FORGE_HOST and the forge's token variable
//	fakeforge review <n> <user> approve|changes|comment <text>
//	fakeforge comment <n> <user> <path> <line> <text>
//	fakeforge merge <n> <user> | fakeforge close <n>
//	fakeforge show <n>           prints the pull request
//	fakeforge requests           prints how many API requests, how many 304
//	fakeforge reset              forgets the requests
//	fakeforge scopes <scope>...  sets the token's scopes, which it enforces
func cmdFakeForge(t testing.TB) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: fakeforge github|gitlab|gitea <owner> <repo> | review | comment | merge | close | show | requests | reset")
		}
		key := ts.Getenv("WORK")
		if k, ok := forge.ParseKind(args[0]); ok {
			if len(args) != 3 {
				ts.Fatalf("usage: fakeforge %s <owner> <repo>", args[0])
			}
			s := forgetest.New(scriptTB{TB: t, ts: ts}, k)
			remote := s.GitRepo(scriptTB{TB: t, ts: ts}, args[1], args[2], map[string]string{"README.md": "# " + args[2] + "\n"})
			forgeMu.Lock()
			fakeForges[key] = s
			forgeMu.Unlock()
			ts.Defer(func() { forgeMu.Lock(); delete(fakeForges, key); forgeMu.Unlock() })
			ts.Setenv("FORGE_REMOTE", remote)
			ts.Setenv("FORGE_HOST", s.Host())
			ts.Setenv("FORGE_OWNER", args[1])
			ts.Setenv("FORGE_REPO", args[2])
			for _, v := range forge.TokenEnv(k) {
				ts.Setenv(v, forgetest.Token)
			}
			return
		}
		forgeMu.Lock()
		s := fakeForges[key]
		forgeMu.Unlock()
		if s == nil {
			ts.Fatalf("fakeforge %s: no forge started", args[0])
		}
		owner, repo := ts.Getenv("FORGE_OWNER"), ts.Getenv("FORGE_REPO")
		num := func(i int) int {
			if len(args) <= i {
				ts.Fatalf("fakeforge %s: missing the pull request number", args[0])
			}
			n, err := strconv.Atoi(args[i])
			ts.Check(err)
			return n
		}
		switch args[0] {
		case "review":
			if len(args) < 4 {
				ts.Fatalf("usage: fakeforge review <n> <user> approve|changes|comment [text]")
			}
			kind := map[string]forge.ReviewKind{"approve": forge.Approved, "changes": forge.ChangesRequested, "comment": forge.Commented}[args[3]]
			if kind == "" {
				ts.Fatalf("fakeforge review: %q is not approve, changes or comment", args[3])
			}
			s.Review(owner, repo, num(1), args[2], kind, strings.Join(args[4:], " "))
		case "comment":
			if len(args) < 6 {
				ts.Fatalf("usage: fakeforge comment <n> <user> <path> <line> <text>")
			}
			line, err := strconv.Atoi(args[4])
			ts.Check(err)
			s.Comment(owner, repo, num(1), args[2], args[3], line, strings.Join(args[5:], " "))
		case "merge":
			s.MergeOutside(owner, repo, num(1), args[2])
		case "close":
			s.Close(owner, repo, num(1))
		case "show":
			p := s.PR(owner, repo, num(1))
			fmt.Fprintf(ts.Stdout(), "#%d %s head=%s base=%s sha=%s method=%s\ntitle: %s\n%s\n", p.Number, p.State, p.Head, p.Base, p.HeadSHA, p.MergeMethod, p.Title, p.Body)
		case "requests":
			rs := s.Requests()
			n304 := 0
			for _, r := range rs {
				if r.Status == 304 && r.Conditional {
					n304++
				}
			}
			fmt.Fprintf(ts.Stdout(), "%d requests, %d answered 304\n", len(rs), n304)
		case "reset":
			s.ResetRequests()
		case "scopes":
			s.SetScopes(args[1:]...)
		default:
			ts.Fatalf("fakeforge: unknown subcommand %q", args[0])
		}
	}
}
