package credentials

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Name is a secret Bonsai can store: a provider's API key or a forge
// token, with the environment variables that give it instead.
type Name struct {
	// Name is what `bonsai credentials set` takes: a provider name from
	// llm.Providers, "github", "gitlab" or "gitea" (Gitea and Forgejo), or
	// the issue trackers "linear" and "jira".
	Name string
	// Env lists the variables that win over the stored value, in the
	// order they are read.
	Env []string
	// Forge is true for the forge tokens.
	Forge bool
}

// Names returns every name a secret can be stored under: the providers in
// llm.Providers' order, then the forges.
func Names() []Name {
	var out []Name
	for _, p := range llm.Providers() {
		out = append(out, Name{Name: p.Name, Env: []string{p.KeyEnv}})
	}
	return append(out,
		Name{Name: "github", Env: []string{"GH_TOKEN", "GITHUB_TOKEN"}, Forge: true},
		Name{Name: "gitlab", Env: []string{"GITLAB_TOKEN"}, Forge: true},
		Name{Name: "gitea", Env: []string{"GITEA_TOKEN"}, Forge: true},
		Name{Name: "linear", Env: []string{"LINEAR_API_KEY"}},
		Name{Name: "jira", Env: []string{"JIRA_API_TOKEN"}})
}

// Lookup returns the name n, or an error listing the known ones and the
// closest to n.
func Lookup(n string) (Name, error) {
	names := Names()
	if i := slices.IndexFunc(names, func(x Name) bool { return x.Name == n }); i >= 0 {
		return names[i], nil
	}
	known := make([]string, len(names))
	for i, x := range names {
		known[i] = x.Name
	}
	msg := fmt.Sprintf("unknown provider %q; known: %s", n, strings.Join(known, ", "))
	if near := nearest(strings.ToLower(n), known); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return Name{}, &UnknownError{Name: n, msg: msg}
}

// ForEnv returns the name whose value the variable env gives.
func ForEnv(env string) (Name, bool) {
	for _, n := range Names() {
		if slices.Contains(n.Env, env) {
			return n, true
		}
	}
	return Name{}, false
}

// UnknownError is the error for a name Bonsai cannot store a secret under.
type UnknownError struct {
	Name string
	msg  string
}

func (e *UnknownError) Error() string { return e.msg }

// nearest returns the candidate at most two edits from s (or s's exact
// lower-case form), or "".
func nearest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
