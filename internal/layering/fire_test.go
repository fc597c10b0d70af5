package layering

import (
	"strings"
	"testing"
)

// clean is a small graph that keeps every rule.
func clean() graph {
	return graph{
		"cmd/bonsai":                 {Imports: []string{"internal/cli"}},
		"internal/board":             {Imports: []string{"errors", "strings"}, Deps: []string{"errors", "strings", "os"}},
		"internal/store":             {Imports: []string{"internal/board"}, Deps: []string{"internal/board"}},
		"internal/store/sqlite":      {Imports: []string{"internal/board", "internal/store", "modernc.org/sqlite"}, Deps: []string{"internal/store", "internal/board", "modernc.org/sqlite"}},
		"internal/llm":               {Imports: []string{"net/http"}, Deps: []string{"net/http"}},
		"internal/llm/openai":        {Imports: []string{"internal/llm"}, Deps: []string{"internal/llm"}},
		"internal/heartbeat":         {Imports: []string{"internal/board", "internal/store"}, Deps: []string{"internal/board", "internal/store"}},
		"internal/executor/local":    {Imports: []string{"os"}, Deps: []string{"os"}},
		"internal/executor/sandbox":  {Imports: []string{"internal/executor/local"}, Deps: []string{"internal/executor/local", "os"}},
		"internal/executor/seatbelt": {Imports: []string{"internal/executor/local"}, Deps: []string{"internal/executor/local", "os"}},
		"internal/cli":               {Imports: []string{"internal/store/sqlite", "internal/heartbeat", "internal/llm/openai"}},

		"internal/executor/sandbox/execserver":             {Imports: []string{"net", "os/exec"}, Deps: []string{"net", "os/exec", "vendor/golang.org/x/net/dns/dnsmessage"}},
		"internal/executor/sandbox/execserver/bonsai-exec": {Imports: []string{"internal/executor/sandbox/execserver"}, Deps: []string{"internal/executor/sandbox/execserver", "net"}},
	}
}

func cleanDoc() map[string][]string {
	return map[string][]string{
		"cmd/bonsai":                 {"internal/cli"},
		"internal/board":             nil,
		"internal/store":             {"internal/board"},
		"internal/store/sqlite":      {"internal/board", "internal/store"},
		"internal/llm":               nil,
		"internal/llm/openai":        {"internal/llm"},
		"internal/executor/local":    nil,
		"internal/executor/sandbox":  {"internal/executor/local"},
		"internal/executor/seatbelt": {"internal/executor/local"},
		"internal/heartbeat":         {"internal/board", "internal/store"},
		"internal/cli":               {allowAll},

		"internal/executor/sandbox/execserver":             nil,
		"internal/executor/sandbox/execserver/bonsai-exec": {"internal/executor/sandbox/execserver"},
	}
}

// TestRules_FireOnBrokenGraphs breaks each rule in a made-up graph and
// checks that the rule, and only the rule, reports it.
func TestRules_FireOnBrokenGraphs(t *testing.T) {
	all := map[string]rule{
		"board":  boardPure,
		"apart":  adaptersApart,
		"core":   coreAvoidsAdapters,
		"doc":    matchesDoc(cleanDoc()),
		"runner": heartbeatBehindRunner,
		"wires":  onlyCLIWires,
		"exec":   execServerSmall,
	}
	for name, r := range all {
		if v := r(clean()); len(v) != 0 {
			t.Fatalf("rule %s fails the clean graph: %v", name, v)
		}
	}

	cases := []struct {
		name   string
		rule   rule
		break_ func(graph) graph
		want   string
	}{
		{"board imports os", boardPure, func(g graph) graph {
			g["internal/board"] = pkg{Imports: []string{"os"}, Deps: []string{"os"}}
			return g
		}, "internal/board imports os"},
		{"board imports os/exec", boardPure, func(g graph) graph {
			g["internal/board"] = pkg{Imports: []string{"os/exec"}}
			return g
		}, "imports os/exec"},
		{"board imports net/http", boardPure, func(g graph) graph {
			g["internal/board"] = pkg{Imports: []string{"net/http"}}
			return g
		}, "imports net/http"},
		{"board imports database/sql", boardPure, func(g graph) graph {
			g["internal/board"] = pkg{Imports: []string{"database/sql"}}
			return g
		}, "imports database/sql"},
		{"board imports io/fs", boardPure, func(g graph) graph {
			g["internal/board"] = pkg{Imports: []string{"io/fs"}}
			return g
		}, "imports io/fs"},
		{"board depends on a module", boardPure, func(g graph) graph {
			g["internal/board"] = pkg{Imports: []string{"strings"}, Deps: []string{"github.com/google/uuid"}}
			return g
		}, "depends on github.com/google/uuid"},
		{"board imports the store", boardPure, func(g graph) graph {
			g["internal/board"] = pkg{Imports: []string{"internal/store"}, Deps: []string{"internal/store"}}
			return g
		}, "imports internal/store"},
		{"board missing", boardPure, func(g graph) graph {
			delete(g, "internal/board")
			return g
		}, "not in the graph"},
		{"adapter imports adapter", adaptersApart, func(g graph) graph {
			p := g["internal/store/sqlite"]
			p.Deps = append(p.Deps, "internal/llm/openai")
			g["internal/store/sqlite"] = p
			return g
		}, "adapter internal/store/sqlite imports adapter internal/llm/openai"},
		{"adapter subpackage imports adapter", adaptersApart, func(g graph) graph {
			g["internal/llm/openai/wire"] = pkg{Deps: []string{"internal/executor/local"}}
			return g
		}, "adapter internal/llm/openai/wire imports adapter internal/executor/local"},
		{"adapter imports the sandbox", adaptersApart, func(g graph) graph {
			p := g["internal/executor/local"]
			p.Deps = append(p.Deps, "internal/executor/sandbox")
			g["internal/executor/local"] = p
			return g
		}, "adapter internal/executor/local imports adapter internal/executor/sandbox"},
		{"sandbox imports another adapter", adaptersApart, func(g graph) graph {
			p := g["internal/executor/sandbox"]
			p.Deps = append(p.Deps, "internal/store/sqlite")
			g["internal/executor/sandbox"] = p
			return g
		}, "adapter internal/executor/sandbox imports adapter internal/store/sqlite"},
		{"seatbelt imports the bubblewrap sandbox", adaptersApart, func(g graph) graph {
			p := g["internal/executor/seatbelt"]
			p.Deps = append(p.Deps, "internal/executor/sandbox")
			g["internal/executor/seatbelt"] = p
			return g
		}, "adapter internal/executor/seatbelt imports adapter internal/executor/sandbox"},
		{"local imports seatbelt", adaptersApart, func(g graph) graph {
			p := g["internal/executor/local"]
			p.Deps = append(p.Deps, "internal/executor/seatbelt")
			g["internal/executor/local"] = p
			return g
		}, "adapter internal/executor/local imports adapter internal/executor/seatbelt"},
		{"another package constructs seatbelt", onlyCLIWires, func(g graph) graph {
			g["internal/tools"] = pkg{Imports: []string{"internal/executor/seatbelt"}}
			return g
		}, "internal/tools imports internal/executor/seatbelt; only internal/cli constructs adapters"},
		{"another package constructs the sandbox", onlyCLIWires, func(g graph) graph {
			g["internal/llm/openai"] = pkg{Imports: []string{"internal/executor/sandbox"}}
			return g
		}, "internal/llm/openai imports internal/executor/sandbox; only internal/cli constructs adapters"},
		{"core imports adapter", coreAvoidsAdapters, func(g graph) graph {
			p := g["internal/heartbeat"]
			p.Deps = append(p.Deps, "internal/store/sqlite")
			g["internal/heartbeat"] = p
			return g
		}, "core package internal/heartbeat imports adapter internal/store/sqlite"},
		{"core subpackage imports adapter", coreAvoidsAdapters, func(g graph) graph {
			g["internal/heartbeat/agentrunner"] = pkg{Deps: []string{"internal/llm/openai"}}
			return g
		}, "core package internal/heartbeat/agentrunner imports adapter internal/llm/openai"},
		{"heartbeat depends on the agent", heartbeatBehindRunner, func(g graph) graph {
			p := g["internal/heartbeat"]
			p.Deps = append(p.Deps, "internal/agenthost", "internal/agent")
			g["internal/heartbeat"] = p
			return g
		}, "internal/heartbeat depends on internal/agent;"},
		{"heartbeat depends on the local executor", heartbeatBehindRunner, func(g graph) graph {
			p := g["internal/heartbeat"]
			p.Deps = append(p.Deps, "internal/executor/local")
			g["internal/heartbeat"] = p
			return g
		}, "internal/heartbeat depends on internal/executor/local"},
		{"runner imports the local executor", onlyCLIWires, func(g graph) graph {
			g["internal/heartbeat/agentrunner"] = pkg{Imports: []string{"internal/executor/local"}}
			return g
		}, "internal/heartbeat/agentrunner imports internal/executor/local"},
		{"web opens the store", onlyCLIWires, func(g graph) graph {
			g["internal/web"] = pkg{Imports: []string{"internal/store/sqlite"}}
			return g
		}, "internal/web imports internal/store/sqlite"},
		{"provider wires a store", onlyCLIWires, func(g graph) graph {
			g["internal/llm/provider"] = pkg{Imports: []string{"internal/llm/openai", "internal/store/sqlite"}}
			return g
		}, "internal/llm/provider imports internal/store/sqlite"},
		{"import the doc does not list", matchesDoc(cleanDoc()), func(g graph) graph {
			p := g["internal/heartbeat"]
			p.Imports = append(p.Imports, "internal/llm")
			g["internal/heartbeat"] = p
			return g
		}, "internal/heartbeat imports internal/llm, which docs/architecture.md does not list"},
		{"doc lists an import that is gone", matchesDoc(cleanDoc()), func(g graph) graph {
			g["internal/heartbeat"] = pkg{Imports: []string{"internal/board"}}
			return g
		}, "docs/architecture.md says internal/heartbeat imports internal/store, which it does not"},
		{"exec server links the board", execServerSmall, func(g graph) graph {
			p := g["internal/executor/sandbox/execserver"]
			p.Deps = append(p.Deps, "internal/board")
			g["internal/executor/sandbox/execserver"] = p
			return g
		}, "execserver depends on internal/board"},
		{"exec server program links cobra", execServerSmall, func(g graph) graph {
			p := g["internal/executor/sandbox/execserver/bonsai-exec"]
			p.Deps = append(p.Deps, "github.com/spf13/cobra")
			g["internal/executor/sandbox/execserver/bonsai-exec"] = p
			return g
		}, "bonsai-exec depends on github.com/spf13/cobra"},
		{"exec server gone", execServerSmall, func(g graph) graph {
			delete(g, "internal/executor/sandbox/execserver/bonsai-exec")
			return g
		}, "bonsai-exec is not in the graph"},
		{"package the doc lacks", matchesDoc(cleanDoc()), func(g graph) graph {
			g["internal/notify"] = pkg{}
			return g
		}, "internal/notify is missing from docs/architecture.md"},
		{"doc names a package that is gone", matchesDoc(cleanDoc()), func(g graph) graph {
			delete(g, "internal/llm/openai")
			p := g["internal/cli"]
			p.Imports = []string{"internal/store/sqlite", "internal/heartbeat"}
			g["internal/cli"] = p
			return g
		}, "lists internal/llm/openai, which is not a package"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := c.rule(c.break_(clean()))
			if len(v) == 0 {
				t.Fatalf("the rule let a broken graph pass")
			}
			found := false
			for _, line := range v {
				found = found || strings.Contains(line, c.want)
			}
			if !found {
				t.Errorf("violations %q do not say %q", v, c.want)
			}
		})
	}
}

// TestParseArchitecture reads a table as docs/architecture.md writes it.
func TestParseArchitecture(t *testing.T) {
	doc := "# A\n\n| package | what it holds | may import |\n|---|---|---|\n" +
		"| `cmd/bonsai` | main | `cli` |\n" +
		"| `internal/board` | the domain | standard library only |\n" +
		"| `internal/llm/anthropic`, `internal/llm/openai` | adapters | `llm` |\n" +
		"| `internal/cli` | wiring | everything |\n\nRules.\n| not | a | row |\n"
	got, err := parseArchitecture(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cmd/bonsai":             "internal/cli",
		"internal/board":         "",
		"internal/llm/anthropic": "internal/llm",
		"internal/llm/openai":    "internal/llm",
		"internal/cli":           allowAll,
	}
	if len(got) != len(want) {
		t.Fatalf("parsed %v, want the keys of %v", got, want)
	}
	for k, w := range want {
		if strings.Join(got[k], " ") != w {
			t.Errorf("%s may import %q, want %q", k, got[k], w)
		}
	}
	if _, err := parseArchitecture(strings.NewReader("no table here\n")); err == nil {
		t.Error("a doc without the table parsed")
	}
}
