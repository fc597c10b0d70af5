package engine_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// loginCase is one CLI logged in as a person would: its credential file
// in the person's home, and what its model request must carry.
type loginCase struct {
	e                engine.Engine
	program, model   string
	file, content    string // the credential file, relative to the home
	host, header, is string // the provider host, and the header carrying the login
	// path ends the path of a request the login must reach; whole says
	// that the fake provider answers the whole run (Codex's ChatGPT
	// login first asks the backend where the account's workspace lives,
	// an answer of a private API the fake does not give, so the run ends
	// there, after requests carrying the login).
	path  string
	whole bool
}

func loginCases() []loginCase {
	exp := time.Now().Add(24 * time.Hour)
	claude := fmt.Sprintf(`{"claudeAiOauth":{"accessToken":"sk-ant-oat01-person-login","refreshToken":"sk-ant-ort01-person-refresh",`+
		`"expiresAt":%d,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}`, exp.UnixMilli())
	claims := map[string]any{"email": "person@example.com", "exp": exp.Unix(),
		"https://api.openai.com/auth": map[string]any{"chatgpt_plan_type": "plus", "chatgpt_user_id": "user-1", "chatgpt_account_id": "acc-1"}}
	access := fakeJWT(claims)
	codex, _ := json.Marshal(map[string]any{"OPENAI_API_KEY": nil, "last_refresh": time.Now().UTC().Format(time.RFC3339),
		"tokens": map[string]any{"id_token": fakeJWT(claims), "access_token": access, "refresh_token": "rt-person", "account_id": "acc-1"}})
	return []loginCase{
		{engine.Claude{}, "claude", "anthropic/claude-sonnet-4-5", ".claude/.credentials.json", claude,
			"api.anthropic.com", "Authorization", "Bearer sk-ant-oat01-person-login", "/v1/messages", true},
		{engine.Codex{}, "codex", "openai/gpt-5", ".codex/auth.json", string(codex), "chatgpt.com", "Authorization", "Bearer " + access,
			"/backend-api/wham/accounts/check", false},
		// An API key OpenCode's `auth login` stored: its OAuth logins
		// need plugins it downloads from npm, which this test has not.
		{engine.OpenCode{}, "opencode", "anthropic/claude-sonnet-4-5", ".local/share/opencode/auth.json",
			`{"anthropic":{"type":"api","key":"sk-ant-person-key"}}`, "api.anthropic.com", "X-Api-Key", "sk-ant-person-key", "/v1/messages", true},
	}
}

// fakeJWT is an unsigned token with claims, the shape Codex reads.
func fakeJWT(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + ".sig"
}

// withEnv adds variables to every command of an executor: here the
// proxy in front of the provider's host and its CA.
type withEnv struct {
	executor.Executor
	env []string
}

func (w withEnv) Exec(ctx context.Context, argv []string, o executor.RunOptions) (executor.Exit, error) {
	o.Env = append(append([]string(nil), o.Env...), w.env...)
	return w.Executor.Exec(ctx, argv, o)
}

// With --engine-auth login each real CLI runs in the sandbox with the
// person's credential file bound into its home, no gateway and no key of
// Bonsai's: the proxy sees its model request go to the provider's own
// host carrying the person's login, and nothing else; the engine's home
// on the host never holds the login.
func TestLoginCLIsTalkToTheirProviderWithTheLogin(t *testing.T) {
	t.Parallel()
	if err := sandbox.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for _, c := range loginCases() {
		t.Run(c.program, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, text("Logged in."))
			f := newFixture(t, c.e, c.program, c.model, nil)
			person := filepath.Join(f.dir, "person")
			cred := filepath.Join(person, c.file)
			if err := os.MkdirAll(filepath.Dir(cred), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cred, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			f.job.Project.Agent = board.AgentSettings{Engine: board.Engine(c.e.Name()), EngineAuth: board.EngineAuthLogin}
			cfg, home, err := engine.StateDirs(f.dir, "demo", 1)
			if err != nil {
				t.Fatal(err)
			}
			at, err := engine.LoginMountPoint(c.e, home)
			if err != nil {
				t.Fatal(err)
			}
			proxy := newMITM(t, srv.URL, cfg)
			ex, err := sandbox.New(f.root, sandbox.Options{Network: sandbox.NetworkAll, DataDir: f.dir,
				Binds: []sandbox.Bind{{Host: cfg, ReadOnly: true}, {Host: home}, {Host: cred, At: at}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ex.Close() })
			f.job.Workspace.Exec = withEnv{ex, []string{"HTTPS_PROXY=" + proxy.URL, "https_proxy=" + proxy.URL,
				"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
				"NODE_EXTRA_CA_CERTS=" + proxy.CAFile, "CODEX_CA_CERTIFICATE=" + proxy.CAFile}}
			bin := requireCLI(t, c.program)
			r, err := engine.New(engine.Options{Engine: c.e, DataDir: f.dir, Home: person,
				Locate: func(engine.Engine) (string, error) { return bin, nil }})
			if err != nil {
				t.Fatal(err)
			}
			out, err := r.RunAgent(context.Background(), f.job)
			if err != nil {
				t.Fatal(err)
			}
			seen := proxy.requests()
			model := 0
			for _, s := range seen {
				if got := s.Header.Get(c.header); got != "" && got != c.is {
					t.Errorf("%s%s carried %s %q, want the login's", s.Host, s.Path, c.header, got)
				}
				if s.Host == c.host && s.Header.Get(c.header) == c.is && strings.HasSuffix(s.Path, c.path) {
					model++
				}
			}
			if model == 0 {
				t.Fatalf("no model request to %s with the login; outcome %+v; the proxy saw:\n%s", c.host, out, describe(seen))
			}
			if c.whole && (out.Status != board.RunCompleted || out.Summary != "Logged in.") {
				t.Errorf("outcome %+v", out)
			}
			if b, _ := os.ReadFile(at); len(b) != 0 {
				t.Errorf("the engine's home holds the login after the run: %q", b)
			}
			if b, _ := os.ReadFile(cred); string(b) != c.content {
				t.Errorf("the person's credential file changed: %q", b)
			}
			// The CLI refreshes its token in place: what it writes there
			// reaches the person's file, never the engine's home.
			var stderr strings.Builder
			if x, err := ex.Exec(context.Background(), []string{"sh", "-c", "printf refreshed > " + at}, executor.RunOptions{Stderr: &stderr}); err != nil || x.Code != 0 {
				t.Fatalf("write the login in the sandbox: %+v %v %s", x, err, stderr.String())
			}
			if b, _ := os.ReadFile(cred); string(b) != "refreshed" {
				t.Errorf("a write in the sandbox left the person's file %q", b)
			}
			if b, _ := os.ReadFile(at); len(b) != 0 {
				t.Errorf("a write in the sandbox reached the engine's home: %q", b)
			}
		})
	}
}
