package layering

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/bonsai-run/bonsai/"

var (
	realOnce  sync.Once
	realGraph graph
	realErr   string
)

// moduleGraph returns the module's import graph from `go list`, once per
// test binary.
func moduleGraph(t *testing.T) graph {
	t.Helper()
	realOnce.Do(func() {
		statSources("../..")
		cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"...")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			realErr = "go list: " + err.Error() + "\n" + stderr.String()
			return
		}
		realGraph = graph{}
		dec := json.NewDecoder(bufio.NewReader(bytes.NewReader(out)))
		for dec.More() {
			var p struct {
				ImportPath    string
				Imports, Deps []string
			}
			if err := dec.Decode(&p); err != nil {
				realErr = "decode go list: " + err.Error()
				return
			}
			realGraph[rel(p.ImportPath)] = pkg{Imports: rels(p.Imports), Deps: rels(p.Deps)}
		}
	})
	if realErr != "" {
		t.Fatal(realErr)
	}
	return realGraph
}

// statSources stats every Go file and go.mod of the module. The graph
// comes from `go list`, whose output the test cache cannot see; stating
// the files makes `go test` cache this package's result only while none of
// them changed, so an import added anywhere reruns the rules.
func statSources(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod") {
			os.Stat(p)
		}
		return nil
	})
}

func rel(p string) string { return strings.TrimPrefix(p, module) }

// rels writes ps relative to the module, leaving out the standard
// library's own internal and vendored packages, whose paths ("internal/abi")
// would read like the module's.
func rels(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if strings.HasPrefix(p, module) {
			out = append(out, rel(p))
		} else if !under(p, "internal") && !under(p, "vendor") {
			out = append(out, p)
		}
	}
	return out
}

// TestModule_KeepsTheRules runs every rule on the module's real graph.
func TestModule_KeepsTheRules(t *testing.T) {
	g := moduleGraph(t)
	allowed, err := readArchitecture("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]rule{
		"board is pure":                 boardPure,
		"adapters stay apart":           adaptersApart,
		"core avoids adapters":          coreAvoidsAdapters,
		"architecture.md's may-imports": matchesDoc(allowed),
		"heartbeat behind the runner":   heartbeatBehindRunner,
		"only cli wires adapters":       onlyCLIWires,
		"exec server is small":          execServerSmall,
	}
	for name, r := range rules {
		t.Run(name, func(t *testing.T) {
			for _, v := range r(g) {
				t.Error(v)
			}
		})
	}
}
