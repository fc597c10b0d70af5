package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testApp runs commands against its own data directory.
type testApp struct {
	t   *testing.T
	env map[string]string
}

// newTestApp is a testApp whose data directory holds a new board, a
// copy of one the test binary migrated once (seedData), as the scripts'
// do: migrating it at the first command was most of a short test's CPU.
func newTestApp(t *testing.T) *testApp {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	if err := seedData(data); err != nil {
		t.Fatal(err)
	}
	return &testApp{t: t, env: map[string]string{
		"BONSAI_DATA_DIR": data, "HOME": t.TempDir(), "BONSAI_USER": "tester",
	}}
}

func (ta *testApp) getenv(k string) string { return ta.env[k] }

// run runs one command to completion and returns its stdout.
func (ta *testApp) run(args ...string) string {
	ta.t.Helper()
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errb, ta.getenv)
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(context.Background())
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil {
		ta.t.Fatalf("bonsai %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

// serve starts `bonsai serve` on a free port and returns its login URL.
func (ta *testApp) serve(ctx context.Context, out *syncBuffer) (url string, done <-chan error) {
	ta.t.Helper()
	return ta.serveWith(ctx, out, nil)
}

// serveWith is serve with edit (nil: none) applied to the server's app.
func (ta *testApp) serveWith(ctx context.Context, out *syncBuffer, edit func(a *app)) (url string, done <-chan error) {
	ta.t.Helper()
	a := newApp(strings.NewReader(""), out, io.Discard, ta.getenv)
	if edit != nil {
		edit(a)
	}
	ch := make(chan error, 1)
	go func() {
		ch <- runServe(ctx, a, serveOptions{addr: "127.0.0.1:0"})
		a.close()
	}()
	re := regexp.MustCompile(`Bonsai is running at (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]+)\n`)
	deadline := time.Now().Add(60 * time.Second) // a failure's deadline, not a timing check
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1], ch
		}
		select {
		case err := <-ch:
			ta.t.Fatalf("serve ended: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	ta.t.Fatalf("serve printed no URL: %q", out.String())
	return "", nil
}

func TestServe_RefusesPublicAddressWithoutFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o    serveOptions
		want string
	}{
		{serveOptions{addr: "0.0.0.0:7373"}, "refusing to listen on 0.0.0.0:7373"},
		{serveOptions{addr: "192.0.2.1:80"}, "add --public"},
		{serveOptions{addr: "7373"}, "must be host:port"},
	} {
		err := checkAddr(tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("checkAddr(%+v) = %v, want %q", tt.o, err, tt.want)
		}
		if exitCode(err, true) != exitUsage {
			t.Errorf("checkAddr(%+v) is not a usage error", tt.o)
		}
	}
	for _, ok := range []serveOptions{{addr: "127.0.0.1:7373"}, {addr: "localhost:0"}, {addr: "[::1]:7373"}, {addr: "0.0.0.0:7373", public: true}} {
		if err := checkAddr(ok); err != nil {
			t.Errorf("checkAddr(%+v) = %v", ok, err)
		}
	}
}

func TestServe_PrintsLinkServesAndStops(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.run("init")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	url, done := ta.serve(ctx, &out)

	jar, _ := cookiejar.New(nil)
	res, err := (&http.Client{Jar: jar}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "Projects") {
		t.Fatalf("GET the login link: %d\n%s", res.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if n := strings.Count(out.String(), "Bonsai is running at"); n != 1 {
		t.Errorf("the link was printed %d times", n)
	}
}

// TestServe_APIMirrorsCLIJSON checks that the API answers with exactly what
// the CLI's --json prints for the same data.
func TestServe_APIMirrorsCLIJSON(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	repo := t.TempDir()
	gittest.Run(t, repo, "init", "-q", "-b", "main")
	ta.run("project", "add", "demo", "--repo", repo, "--verify", "go test ./...")
	ta.run("ticket", "add", "demo", "First", "--criterion", "it works", "--description", "Some *text*")
	ta.run("ticket", "add", "demo", "Second", "--state", "RESEARCH")
	ta.run("comment", "add", "demo#1", "a note")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	url, done := ta.serve(ctx, &out)
	base, token, _ := strings.Cut(url, "/?token=")
	get := func(path string) any {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v any
		if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return v
	}
	for _, tt := range []struct {
		path string
		cli  []string
	}{
		{"/api/projects", []string{"project", "list", "--json"}},
		{"/api/projects/demo", []string{"project", "show", "demo", "--json"}},
		{"/api/projects/demo/tickets", []string{"ticket", "list", "demo", "--json"}},
		{"/api/projects/demo/tickets/1", []string{"ticket", "show", "demo#1", "--json"}},
		{"/api/status", []string{"status", "--json"}},
	} {
		var want any
		if err := json.Unmarshal([]byte(ta.run(tt.cli...)), &want); err != nil {
			t.Fatal(err)
		}
		if got := get(tt.path); !reflect.DeepEqual(got, want) {
			t.Errorf("GET %s differs from bonsai %s:\napi: %v\ncli: %v", tt.path, strings.Join(tt.cli, " "), got, want)
		}
	}
	cancel()
	<-done
}

// TestServe_ProjectModelChecked: the server bonsai serve builds checks a
// project's model as 'project edit --model' does: an unknown provider is
// refused, a model whose key is not set yet is accepted.
func TestServe_ProjectModelChecked(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	repo := t.TempDir()
	gittest.Run(t, repo, "init", "-q", "-b", "main")
	ta.run("project", "add", "demo", "--repo", repo)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	url, done := ta.serve(ctx, &out)
	base, token, _ := strings.Cut(url, "/?token=")
	patch := func(body string) (int, string) {
		req, _ := http.NewRequest("PATCH", base+"/api/projects/demo", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := patch(`{"model": "antropic/claude-sonnet-4-5"}`); code != http.StatusBadRequest || !strings.Contains(body, `unknown provider \"antropic\"`) {
		t.Errorf("PATCH with an unknown provider = %d %s, want 400 naming it", code, body)
	}
	if code, body := patch(`{"model": "openai/gpt-5"}`); code != http.StatusOK || !strings.Contains(body, `"model": "openai/gpt-5"`) {
		t.Errorf("PATCH with a known provider and no key = %d %s, want 200", code, body)
	}
	cancel()
	<-done
}

func TestTicketDiff_BranchAgainstDefault(t *testing.T) {
	t.Parallel()
	d := config.Dir(t.TempDir())
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.txt": "one\n"})
	clone := d.Path("projects", "demo")
	git := func(args ...string) {
		t.Helper()
		gittest.Run(t, clone, args...)
	}
	p := board.Project{Slug: "demo", Repo: repo, DefaultBranch: "main"}
	tk := board.Ticket{Number: 3, Title: "Add a flag"}
	diff, err := ticketDiff(d, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := diff(context.Background(), p, tk); got != "" || err != nil {
		t.Fatalf("without a clone: %q, %v", got, err)
	}
	gittest.Run(t, repo, "clone", "-q", repo, clone)
	if got, err := diff(context.Background(), p, tk); got != "" || err != nil {
		t.Fatalf("without the branch: %q, %v", got, err)
	}
	git("checkout", "-q", "-b", workspace.BranchName(p.Slug, 3, "Add a flag"))
	os.WriteFile(filepath.Join(clone, "a.txt"), []byte("one\ntwo\n"), 0o644)
	git("commit", "-q", "-am", "work")
	os.WriteFile(filepath.Join(repo, "b.txt"), []byte("on main only\n"), 0o644)
	gittest.Run(t, repo, "add", ".")
	gittest.Run(t, repo, "commit", "-q", "-m", "main moves on")
	got, err := diff(context.Background(), p, tk)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "diff --git a/a.txt b/a.txt") || !strings.Contains(got, "+two") || strings.Contains(got, "b.txt") {
		t.Fatalf("diff:\n%s", got)
	}
}
