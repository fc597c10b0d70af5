package mcpclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// npmBin returns the path of a program of the npm MCP packages .ci/run
// installs ($BONSAI_MCP_NPM, else ~/.cache/bonsai-ci/npm-mcp). It skips
// the test when it is missing, and fails it when CI=true.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("BONSAI_MCP_NPM")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "bonsai-ci", "npm-mcp")
	}
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (CI=true): .ci/run installs it into %s", name, dir)
		}
		t.Skipf("%s is not installed; .ci/run installs it into %s", name, dir)
	}
	return p
}

func TestNpm_ServerEverything(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	// The server's environment is the executor's clean one plus its own
	// env: none of this process's other variables.
	t.Setenv("MCPCLIENT_NOT_PASSED", "secret-value")
	c := Open(context.Background(), []Server{{Name: "everything", Command: []string{bin}, Env: []string{"MCPCLIENT_PASSED=given", "MCPCLIENT_TOKEN=tok-0123456789abcdef"}}},
		Options{Exec: localExec(t), Redact: func(s string) string { return strings.ReplaceAll(s, "tok-0123456789abcdef", "[redacted]") }})
	defer c.Close()
	rep := c.Reports()[0]
	if rep.Error != "" || rep.Tools < 10 || rep.SchemaBytes < 2000 {
		t.Fatalf("report = %+v", rep)
	}
	t.Logf("server-everything: %d tools, %d schema bytes", rep.Tools, rep.SchemaBytes)
	if r := call(t, find(t, c.Tools(), "mcp__everything__echo"), `{"message":"hello"}`); r.IsError || !strings.Contains(r.Text(), "hello") {
		t.Errorf("echo = %+v", r)
	}
	if r := call(t, find(t, c.Tools(), "mcp__everything__get-sum"), `{"a":2,"b":40}`); r.IsError || !strings.Contains(r.Text(), "42") {
		t.Errorf("get-sum = %+v", r)
	}
	if r := call(t, find(t, c.Tools(), "mcp__everything__get-sum"), `{"a":"two","b":40}`); !r.IsError || !strings.Contains(r.Text(), "Invalid arguments") {
		t.Errorf("get-sum with a string = %+v", r)
	}
	r := call(t, find(t, c.Tools(), "mcp__everything__get-tiny-image"), `{}`)
	var image bool
	for _, p := range r.Content {
		image = image || (p.Type == llm.PartImage && p.MimeType == "image/png" && p.Data != "")
	}
	if r.IsError || !image {
		t.Errorf("get-tiny-image = %+v", r)
	}
	if r := call(t, find(t, c.Tools(), "mcp__everything__get-env"), `{}`); r.IsError || strings.Contains(r.Text(), "secret-value") || !strings.Contains(r.Text(), "given") ||
		strings.Contains(r.Text(), "tok-0123456789abcdef") || !strings.Contains(r.Text(), "MCPCLIENT_TOKEN") {
		t.Errorf("get-env = %v %q", r.IsError, r.Text())
	}
}

func TestNpm_ServerFilesystem(t *testing.T) {
	bin := npmBin(t, "mcp-server-filesystem")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	// The server is started in the workspace root: "." is the workspace.
	c := Open(context.Background(), []Server{{Name: "fs", Command: []string{bin, "."}}}, Options{Exec: ex})
	defer c.Close()
	if rep := c.Reports()[0]; rep.Error != "" || rep.Tools < 5 {
		t.Fatalf("report = %+v", rep)
	}
	t.Logf("server-filesystem: %+v", c.Reports()[0])
	if r := call(t, find(t, c.Tools(), "mcp__fs__read_text_file"), `{"path":"notes.txt"}`); r.IsError || !strings.Contains(r.Text(), "the answer is 42") {
		t.Errorf("read_text_file = %+v", r)
	}
	if r := call(t, find(t, c.Tools(), "mcp__fs__write_file"), `{"path":"new.txt","content":"written over MCP"}`); r.IsError {
		t.Errorf("write_file = %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(root, "new.txt")); err != nil || string(b) != "written over MCP" {
		t.Errorf("new.txt = %q, %v", b, err)
	}
	// The server refuses paths outside its directory: a tool error.
	if r := call(t, find(t, c.Tools(), "mcp__fs__read_text_file"), `{"path":"/etc/passwd"}`); !r.IsError {
		t.Errorf("read outside = %+v", r)
	}
	for _, tl := range c.Tools() {
		if strings.HasPrefix(tl.Name(), "mcp__fs__read") {
			if ro, ok := tl.(interface{ ReadOnly() bool }); !ok || !ro.ReadOnly() {
				t.Errorf("%s is not read-only", tl.Name())
			}
		}
	}
}
