package layering

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// pkg is one package of an import graph: its direct imports and its
// transitive dependencies, tests excluded. Paths of the module are written
// relative to it ("internal/board"); others are written in full.
type pkg struct {
	Imports []string
	Deps    []string
}

// graph maps a package path to what it imports.
type graph map[string]pkg

// rule checks a graph and returns one line per violation.
type rule func(graph) []string

// boardStdlib is every package internal/board may import directly. The
// domain does no I/O: no os, os/exec, net/..., database/sql or io/fs.
var boardStdlib = []string{
	"bytes", "cmp", "context", "encoding/json", "errors", "fmt", "iter", "maps",
	"math", "regexp", "slices", "sort", "strconv", "strings", "time",
	"unicode", "unicode/utf8",
}

// adapters talk to one outside thing each; they never import one another.
var adapters = []string{
	"internal/store/sqlite",
	"internal/store/postgres",
	"internal/llm/anthropic",
	"internal/llm/openai",
	"internal/executor/local",
	"internal/executor/sandbox",
	"internal/executor/seatbelt",
}

// adapterWraps are the only adapter-to-adapter imports allowed: the
// sandbox executors (bubblewrap, Seatbelt) wrap the local one on purpose,
// keeping its os.Root file operations and process-group handling and
// changing only how commands start (inside bwrap, under sandbox-exec).
var adapterWraps = map[string]string{
	"internal/executor/sandbox":  "internal/executor/local",
	"internal/executor/seatbelt": "internal/executor/local",
}

// core packages depend on interfaces they declare, never on an adapter's
// concrete types (the executor package may be imported for its interface).
var core = []string{"internal/agent", "internal/heartbeat", "internal/web", "internal/session", "internal/tools"}

// coreForbidden are the adapters core packages must not import.
var coreForbidden = []string{"internal/store/sqlite", "internal/store/postgres", "internal/llm/anthropic", "internal/llm/openai"}

// inModule reports whether path, as written in a graph, is a package of
// this module.
func inModule(path string) bool {
	return under(path, "internal") || under(path, "cmd") || under(path, "bench")
}

func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !inModule(path) && !strings.Contains(first, ".")
}

// under reports whether p is dir or below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// sortedKeys returns g's packages in order, so violations read the same
// on every run.
func sortedKeys(g graph) []string {
	ks := make([]string, 0, len(g))
	for k := range g {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// boardPure: the board's direct imports are on boardStdlib and nothing
// it depends on, even transitively, is outside the standard library.
func boardPure(g graph) []string {
	b, ok := g["internal/board"]
	if !ok {
		return []string{"internal/board is not in the graph"}
	}
	var v []string
	for _, d := range b.Imports {
		if !slices.Contains(boardStdlib, d) {
			v = append(v, fmt.Sprintf("internal/board imports %s; it may import only %s", d, strings.Join(boardStdlib, " ")))
		}
	}
	for _, d := range b.Deps {
		if !isStandard(d) {
			v = append(v, fmt.Sprintf("internal/board depends on %s; it may depend only on the standard library", d))
		}
	}
	return v
}

// adaptersApart: no adapter depends on another, except the pairs of
// adapterWraps.
func adaptersApart(g graph) []string {
	var v []string
	for _, p := range sortedKeys(g) {
		for _, a := range adapters {
			if !under(p, a) {
				continue
			}
			for _, d := range g[p].Deps {
				for _, b := range adapters {
					if b != a && under(d, b) && !under(a, b) && adapterWraps[a] != b {
						v = append(v, fmt.Sprintf("adapter %s imports adapter %s", p, d))
					}
				}
			}
		}
	}
	return v
}

// coreAvoidsAdapters: no core package depends on a forbidden adapter.
func coreAvoidsAdapters(g graph) []string {
	var v []string
	for _, p := range sortedKeys(g) {
		for _, c := range core {
			if !under(p, c) {
				continue
			}
			for _, d := range g[p].Deps {
				for _, f := range coreForbidden {
					if under(d, f) {
						v = append(v, fmt.Sprintf("core package %s imports adapter %s; declare an interface and let internal/cli wire it", p, d))
					}
				}
			}
		}
	}
	return v
}

// allowAll marks a package that may import any package of the module.
const allowAll = "*"

// matchesDoc returns a rule: every package of the module imports directly
// exactly the module packages that allowed lists for it, and allowed names
// every package of the module (and no package that does not exist).
func matchesDoc(allowed map[string][]string) rule {
	return func(g graph) []string {
		var v []string
		for _, p := range sortedKeys(g) {
			if !under(p, "internal") && !under(p, "cmd") {
				continue
			}
			may, ok := allowed[p]
			if !ok {
				v = append(v, fmt.Sprintf("%s is missing from docs/architecture.md's package table", p))
				continue
			}
			if slices.Contains(may, allowAll) {
				continue
			}
			for _, d := range g[p].Imports {
				if under(d, "internal") && !slices.Contains(may, d) {
					v = append(v, fmt.Sprintf("%s imports %s, which docs/architecture.md does not list under \"may import\"", p, d))
				}
			}
			for _, d := range may {
				if !slices.Contains(g[p].Imports, d) {
					v = append(v, fmt.Sprintf("docs/architecture.md says %s imports %s, which it does not", p, d))
				}
			}
		}
		for _, p := range sortedKeys(graphOf(allowed)) {
			if _, ok := g[p]; !ok {
				v = append(v, fmt.Sprintf("docs/architecture.md lists %s, which is not a package", p))
			}
		}
		return v
	}
}

// graphOf turns a table's keys into a graph with no edges, to sort them.
func graphOf(m map[string][]string) graph {
	g := graph{}
	for k := range m {
		g[k] = pkg{}
	}
	return g
}

// runnerFree are the packages the heartbeat may not depend on, even
// transitively: the agent, its assembly and the host executor stay behind
// the AgentRunner boundary, which internal/cli wires.
var runnerFree = []string{"internal/agent", "internal/agenthost", "internal/executor/local", "internal/executor/sandbox", "internal/executor/seatbelt"}

// heartbeatBehindRunner: internal/heartbeat itself depends on none of
// runnerFree (its agentrunner subpackage is the runner, and may).
func heartbeatBehindRunner(g graph) []string {
	var v []string
	for _, d := range g["internal/heartbeat"].Deps {
		for _, f := range runnerFree {
			if under(d, f) {
				v = append(v, fmt.Sprintf("internal/heartbeat depends on %s; hand the runner a Brief and let internal/cli wire the rest", d))
			}
		}
	}
	return v
}

// wired are the concrete adapters only the wiring constructs.
var wired = []string{"internal/executor/local", "internal/executor/sandbox", "internal/executor/seatbelt", "internal/store/sqlite", "internal/store/postgres", "internal/llm/anthropic", "internal/llm/openai"}

// wiring may import an adapter of wired: internal/cli wires everything,
// cmd and bench are programs, and internal/llm/provider is the adapter
// wiring of the llm adapters (a provider/model id to an adapter).
func mayWire(p, adapter string) bool {
	switch {
	case under(p, "internal/cli"), under(p, "cmd"), under(p, "bench"), under(p, adapter), adapterWraps[p] == adapter:
		return true
	case p == "internal/llm/provider":
		return under(adapter, "internal/llm")
	}
	return false
}

// execServer is the program that runs inside every sandbox, and its
// package: they link the standard library only, so that the program
// stays a few MB and no board, store, web or CLI code runs in a sandbox.
var execServer = []string{"internal/executor/sandbox/execserver", "internal/executor/sandbox/execserver/bonsai-exec"}

// execServerSmall: the exec server depends, even transitively, on the
// standard library and itself only.
func execServerSmall(g graph) []string {
	var v []string
	for _, p := range execServer {
		n, ok := g[p]
		if !ok {
			v = append(v, p+" is not in the graph")
			continue
		}
		for _, d := range n.Deps {
			if !isStandard(d) && !under(d, execServer[0]) {
				v = append(v, fmt.Sprintf("%s depends on %s; the exec server links the standard library only", p, d))
			}
		}
	}
	return v
}

// onlyCLIWires: no other package imports a concrete adapter directly.
func onlyCLIWires(g graph) []string {
	var v []string
	for _, p := range sortedKeys(g) {
		for _, d := range g[p].Imports {
			for _, a := range wired {
				if under(d, a) && !mayWire(p, a) {
					v = append(v, fmt.Sprintf("%s imports %s; only internal/cli constructs adapters", p, d))
				}
			}
		}
	}
	return v
}
