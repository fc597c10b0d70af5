package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/tools"
)

// goldenCase is one tool call whose result is compared with a golden file.
type goldenCase struct {
	name, tool, args string
	// file, when set, is a workspace file whose content after the call
	// is added to the golden output.
	file string
	// setup, when set, prepares the workspace.
	setup func(t *testing.T, root string)
}

// sized creates a file of n bytes starting with head (sparse, so cheap).
func sized(name, head string, n int64) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		f, err := os.Create(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(head); err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(n); err != nil {
			t.Fatal(err)
		}
	}
}

var fileCases = []goldenCase{
	{name: "read/basic", tool: "read", args: `{"path":"main.go"}`},
	{name: "read/offset_limit", tool: "read", args: `{"path":"big.txt","offset":98,"limit":5}`},
	{name: "read/truncated_lines", tool: "read", args: `{"path":"big.txt"}`},
	{name: "read/truncated_bytes", tool: "read", args: `{"path":"wide.txt"}`},
	{name: "read/long_line", tool: "read", args: `{"path":"long.txt"}`},
	{name: "read/offset_past_end", tool: "read", args: `{"path":"main.go","offset":50}`},
	{name: "read/crlf_bom", tool: "read", args: `{"path":"bom.txt"}`},
	{name: "read/binary", tool: "read", args: `{"path":"bin.dat"}`},
	{name: "read/image", tool: "read", args: `{"path":"img.png"}`},
	{name: "read/not_utf8", tool: "read", args: `{"path":"latin1.txt"}`},
	{name: "read/empty", tool: "read", args: `{"path":"empty.txt"}`},
	{name: "read/missing", tool: "read", args: `{"path":"nope.txt"}`},
	{name: "read/directory", tool: "read", args: `{"path":"src"}`},
	{name: "read/outside", tool: "read", args: `{"path":"../etc/passwd"}`},
	{name: "read/absolute_outside", tool: "read", args: `{"path":"/etc/passwd"}`},
	{name: "read/home", tool: "read", args: `{"path":"~/.ssh/id_rsa"}`},
	{name: "read/nul", tool: "read", args: `{"path":"a\u0000b"}`},
	{name: "read/bad_args", tool: "read", args: `{"path":3,"offset":-1}`},
	{name: "read/missing_arg", tool: "read", args: `{}`},
	{name: "read/too_large", tool: "read", args: `{"path":"huge.txt"}`, setup: sized("huge.txt", "x", 300<<20)},
	{name: "read/image_too_large", tool: "read", args: `{"path":"big.png"}`, setup: sized("big.png", "\x89PNG\r\n\x1a\n", 6<<20)},

	{name: "write/create", tool: "write", args: `{"path":"new/dir/file.txt","content":"hello\n"}`, file: "new/dir/file.txt"},
	{name: "write/overwrite", tool: "write", args: `{"path":"README.md","content":"# New\n"}`, file: "README.md"},
	{name: "write/directory", tool: "write", args: `{"path":"src","content":"x"}`},
	{name: "write/outside", tool: "write", args: `{"path":"../x.txt","content":"x"}`},
	{name: "write/too_large", tool: "write", args: `{"path":"huge.txt","content":"` + strings.Repeat("a", 10<<20+1) + `"}`, file: "huge.txt"},
	{name: "write/nul_path", tool: "write", args: `{"path":"a\u0000b","content":"x"}`},

	{name: "edit/exact", tool: "edit", args: `{"path":"main.go","old_string":"\"hello\"","new_string":"\"hello, world\""}`, file: "main.go"},
	{name: "edit/multiline", tool: "edit", args: `{"path":"src/app.go","old_string":"// TODO: handle errors\nfunc App() string {","new_string":"// App names the app.\nfunc App() string {"}`, file: "src/app.go"},
	{name: "edit/forgiving", tool: "edit", args: `{"path":"quotes.txt","old_string":"say \"hello\" - it's fine\nnext line","new_string":"say hi\nnext line"}`, file: "quotes.txt"},
	{name: "edit/crlf", tool: "edit", args: `{"path":"crlf.txt","old_string":"two\nthree","new_string":"2\n3"}`, file: "crlf.txt"},
	{name: "edit/bom", tool: "edit", args: `{"path":"bom.txt","old_string":"second","new_string":"2nd"}`, file: "bom.txt"},
	{name: "edit/not_unique", tool: "edit", args: `{"path":"dup.txt","old_string":"x = 1","new_string":"x = 2"}`},
	{name: "edit/replace_all", tool: "edit", args: `{"path":"dup.txt","old_string":"x = 1","new_string":"x = 2","replace_all":true}`, file: "dup.txt"},
	{name: "edit/not_found", tool: "edit", args: `{"path":"src/app.go","old_string":"func App() int {\n\treturn \"app\"","new_string":"x"}`},
	{name: "edit/not_found_far", tool: "edit", args: `{"path":"main.go","old_string":"qqqqqqqqqqqq","new_string":"x"}`},
	{name: "edit/identical", tool: "edit", args: `{"path":"main.go","old_string":"main","new_string":"main"}`},
	{name: "edit/no_change", tool: "edit", args: `{"path":"quotes.txt","old_string":"say \"hello\"","new_string":"say “hello”"}`, file: "quotes.txt"},
	{name: "edit/empty_old", tool: "edit", args: `{"path":"main.go","old_string":"","new_string":"x"}`},
	{name: "edit/missing", tool: "edit", args: `{"path":"nope.go","old_string":"a","new_string":"b"}`},
	{name: "edit/binary", tool: "edit", args: `{"path":"bin.dat","old_string":"TODO","new_string":"b"}`},
	{name: "edit/bad_type", tool: "edit", args: `{"path":"main.go","old_string":"a","new_string":1}`},
	{name: "edit/directory", tool: "edit", args: `{"path":"src","old_string":"a","new_string":"b"}`},
	{name: "edit/not_utf8", tool: "edit", args: `{"path":"latin1.txt","old_string":"caf","new_string":"cafe"}`},
	{name: "edit/symlink_outside", tool: "edit", args: `{"path":"out.txt","old_string":"a","new_string":"b"}`, setup: func(t *testing.T, root string) {
		if err := os.Symlink("/etc/hostname", filepath.Join(root, "out.txt")); err != nil {
			t.Fatal(err)
		}
	}},

	{name: "ls/root", tool: "ls", args: `{}`},
	{name: "ls/sub", tool: "ls", args: `{"path":"src"}`},
	{name: "ls/limit", tool: "ls", args: `{"limit":3}`},
	{name: "ls/missing", tool: "ls", args: `{"path":"nope"}`},
	{name: "ls/file", tool: "ls", args: `{"path":"main.go"}`},
	{name: "ls/empty", tool: "ls", args: `{"path":"empty-dir"}`},
	{name: "ls/negative_limit", tool: "ls", args: `{"limit":-5}`},

	{name: "bash/ok", tool: "bash", args: `{"command":"echo out; echo err >&2; echo out2"}`},
	{name: "bash/exit", tool: "bash", args: `{"command":"echo failing; exit 3"}`},
	{name: "bash/no_output", tool: "bash", args: `{"command":"true"}`},
	{name: "bash/timeout", tool: "bash", args: `{"command":"echo before; sleep 5","timeout":0.5}`},
	{name: "bash/truncated", tool: "bash", args: `{"command":"seq 1 3000"}`, file: ".bonsai-tmp/.gitignore"},
	{name: "bash/long_line", tool: "bash", args: `{"command":"head -c 60000 /dev/zero | tr '\\0' y"}`},
	{name: "bash/bad_timeout", tool: "bash", args: `{"command":"true","timeout":-1}`},
}

var searchCases = []goldenCase{
	{name: "grep/basic", tool: "grep", args: `{"pattern":"TODO"}`},
	{name: "grep/path", tool: "grep", args: `{"pattern":"TODO","path":"src"}`},
	{name: "grep/file", tool: "grep", args: `{"pattern":"fmt","path":"main.go"}`},
	{name: "grep/glob", tool: "grep", args: `{"pattern":"TODO","glob":"*.go"}`},
	{name: "grep/glob_path", tool: "grep", args: `{"pattern":"TODO","glob":"src/**/*.ts"}`},
	{name: "grep/ignore_case", tool: "grep", args: `{"pattern":"todo","ignore_case":true,"path":"src"}`},
	{name: "grep/literal", tool: "grep", args: `{"pattern":"fmt.Println(","literal":true}`},
	{name: "grep/regex", tool: "grep", args: `{"pattern":"^func \\w+\\(\\)"}`},
	{name: "grep/context", tool: "grep", args: `{"pattern":"Println|return","context":1}`},
	{name: "grep/limit", tool: "grep", args: `{"pattern":"line 1","path":"big.txt","limit":3}`},
	{name: "grep/long_lines", tool: "grep", args: `{"pattern":"w 1","path":"wide.txt","limit":2}`},
	{name: "grep/crlf", tool: "grep", args: `{"pattern":"two","path":"crlf.txt"}`},
	{name: "grep/no_match", tool: "grep", args: `{"pattern":"nothing-matches-this"}`},
	{name: "grep/bad_regex", tool: "grep", args: `{"pattern":"(unclosed"}`},
	{name: "grep/missing_path", tool: "grep", args: `{"pattern":"x","path":"nope"}`},
	{name: "grep/outside", tool: "grep", args: `{"pattern":"root","path":".."}`},
	{name: "grep/bad_limit", tool: "grep", args: `{"pattern":"x","limit":0}`},
	{name: "grep/output_truncated", tool: "grep", args: `{"pattern":"line","path":"big.txt","limit":5000}`},

	{name: "find/go", tool: "find", args: `{"pattern":"*.go"}`},
	{name: "find/all", tool: "find", args: `{"pattern":"**"}`},
	{name: "find/path_glob", tool: "find", args: `{"pattern":"**/*.ts","path":"src"}`},
	{name: "find/dirs", tool: "find", args: `{"pattern":"s*"}`},
	{name: "find/limit", tool: "find", args: `{"pattern":"*.txt","limit":2}`},
	{name: "find/none", tool: "find", args: `{"pattern":"*.rs"}`},
	{name: "find/bad_glob", tool: "find", args: `{"pattern":"[a"}`},
	{name: "find/file_path", tool: "find", args: `{"pattern":"*","path":"main.go"}`},
}

func TestTools_Golden(t *testing.T) {
	for _, c := range fileCases {
		t.Run(c.name, func(t *testing.T) {
			root := fixture(t)
			if err := os.Mkdir(filepath.Join(root, "empty-dir"), 0o755); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				c.setup(t, root)
			}
			r := run(t, newSet(t, root, tools.SearchGo), c.tool, c.args)
			got := render(r)
			if c.file != "" {
				b, err := os.ReadFile(filepath.Join(root, c.file))
				if err != nil {
					b = []byte(err.Error()[strings.LastIndex(err.Error(), ":")+2:] + "\n")
				}
				got += "--- file " + c.file + "\n" + string(b)
			}
			golden(t, c.name, got, *update)
		})
	}
}

// TestTools_GoldenSearch runs grep and find on both backends against the
// same golden files: their output must be identical.
func TestTools_GoldenSearch(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if b.search == tools.SearchRipgrep && !hasRipgrep() {
				t.Skip("rg is not on PATH")
			}
			root := fixture(t)
			ts := newSet(t, root, b.search)
			for _, c := range searchCases {
				t.Run(c.name, func(t *testing.T) {
					got := render(run(t, ts, c.tool, c.args))
					// The Go backend writes goldens; rg must match them.
					golden(t, c.name, got, *update && b.search == tools.SearchGo)
				})
			}
		})
	}
}
