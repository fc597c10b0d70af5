package layering

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/bonsai-run/bonsai/"

// adapters talk to one outside thing each; they never import one another.
var adapters = []string{
	"internal/store/sqlite",
	"internal/store/postgres",
	"internal/llm/anthropic",
	"internal/llm/openai",
	"internal/executor",
}

// core packages depend on interfaces they declare, never on an adapter's
// concrete types (the executor package may be imported for its interface).
var core = []string{"internal/agent", "internal/heartbeat", "internal/web", "internal/session", "internal/tools"}

// coreForbidden are the adapters core packages must not import.
var coreForbidden = []string{"internal/store/sqlite", "internal/store/postgres", "internal/llm/anthropic", "internal/llm/openai"}

// deps returns, for every package of the module, its transitive imports
// (tests excluded), from `go list -deps`.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	m := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			m[strings.TrimPrefix(f[0], module)] = f[1:]
		}
	}
	return m
}

func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// under reports whether pkg is dir or below it.
func under(pkg, dir string) bool {
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

func TestBoard_ImportsOnlyStandardLibrary(t *testing.T) {
	all := deps(t)
	board, ok := all["internal/board"]
	if !ok {
		t.Fatal("internal/board not found by go list")
	}
	for _, d := range board {
		if !isStandard(d) {
			t.Errorf("internal/board imports %s; it may import only the standard library", d)
		}
	}
}

func TestAdapters_DoNotImportEachOther(t *testing.T) {
	all := deps(t)
	for pkg, ds := range all {
		for _, a := range adapters {
			if !under(pkg, a) {
				continue
			}
			for _, d := range ds {
				for _, b := range adapters {
					if b != a && under(strings.TrimPrefix(d, module), b) && !under(a, b) {
						t.Errorf("adapter %s imports adapter %s", pkg, d)
					}
				}
			}
		}
	}
}

func TestCore_DoesNotImportAdapters(t *testing.T) {
	all := deps(t)
	for pkg, ds := range all {
		for _, c := range core {
			if !under(pkg, c) {
				continue
			}
			for _, d := range ds {
				for _, f := range coreForbidden {
					if under(strings.TrimPrefix(d, module), f) {
						t.Errorf("core package %s imports adapter %s; declare an interface and let internal/cli wire it", pkg, d)
					}
				}
			}
		}
	}
}

// TestRules_Fire proves the checks above can fail: it feeds them a
// dependency list that breaks every rule.
func TestRules_Fire(t *testing.T) {
	if isStandard("github.com/x/y") || !isStandard("encoding/json") || !isStandard("vendor/golang.org/x/net") {
		t.Fatal("isStandard misclassifies")
	}
	if !under("internal/store/sqlite/migrations", "internal/store/sqlite") || under("internal/storex", "internal/store") {
		t.Fatal("under misclassifies")
	}
}
