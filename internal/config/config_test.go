package config

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestParse_Errors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not json", `{`, "cfg.json: not valid JSON"},
		{"trailing data", `{} {}`, "cfg.json: not valid JSON: extra data"},
		{"null", `null`, "cfg.json: must be a JSON object of settings, got null"},
		{"empty", " \n", "cfg.json: is empty; it must be a JSON object of settings"},
		{"array", `[]`, "cfg.json: not valid JSON"},
		{"unknown key", `{"modle": "x/y"}`, `cfg.json: modle: unknown key (did you mean "model"?); known keys are model, heartbeat.intervalSec`},
		{"unknown nested key", `{"heartbeat": {"interval": 5}}`, "cfg.json: heartbeat.interval: unknown key"},
		{"section not object", `{"heartbeat": 5}`, "cfg.json: heartbeat: must be an object"},
		{"wrong type", `{"heartbeat": {"intervalSec": "60"}}`, `cfg.json: heartbeat.intervalSec: must be a whole number from 10 to 86400, got "60"`},
		{"fraction", `{"heartbeat": {"intervalSec": 1.5}}`, "must be a whole number from 10 to 86400, got 1.5"},
		{"out of range", `{"heartbeat": {"maxDurationSec": 5}}`, "cfg.json: heartbeat.maxDurationSec: must be a whole number from 60 to 86400, got 5"},
		{"auto wrong word", `{"heartbeat": {"maxConcurrentAgents": "many"}}`, `must be "auto" or a whole number from 1 to 1024, got "many"`},
		{"auto zero", `{"heartbeat": {"maxConcurrentAgents": 0}}`, `must be "auto" or a whole number from 1 to 1024, got 0`},
		{"bad model", `{"model": "claude"}`, `cfg.json: model: must look like provider/model`},
		{"model null", `{"model": null}`, "cfg.json: model: must be a string, got null"},
		{"bad env name", `{"agent": {"env": ["OK", "NOT OK"]}}`, `cfg.json: agent.env: "NOT OK" is not an environment variable name`},
		{"negative tokens", `{"budget": {"runTokens": -1}}`, "cfg.json: budget.runTokens: must be a whole number from 0 to 1000000000, got -1"},
		{"fractional tokens", `{"budget": {"ticketTokens": 2.5}}`, "cfg.json: budget.ticketTokens: must be a whole number from 0 to 1000000000, got 2.5"},
		{"usd as string", `{"budget": {"runUSD": "5"}}`, `cfg.json: budget.runUSD: must be an amount of US dollars from 0 to 100000, got "5"`},
		{"negative usd", `{"budget": {"projectDailyUSD": -0.5}}`, "cfg.json: budget.projectDailyUSD: must be an amount of US dollars from 0 to 100000, got -0.5"},
		{"usd too big", `{"budget": {"ticketUSD": 1e9}}`, "cfg.json: budget.ticketUSD: must be an amount of US dollars from 0 to 100000, got 1000000000"},
		{"unknown budget key", `{"budget": {"perRun": 1}}`, "cfg.json: budget.perRun: unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("cfg.json", []byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%s) error = %v, want containing %q", tt.json, err, tt.want)
			}
		})
	}
}

func TestParse_Values(t *testing.T) {
	c, err := Parse("cfg.json", []byte(`{"model":"openai/gpt-5","heartbeat":{"intervalSec":30,"maxConcurrentAgents":4},"agent":{"env":["GOPATH"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "openai/gpt-5" || c.Heartbeat.IntervalSec != 30 || c.Heartbeat.MaxConcurrentAgents != 4 ||
		c.Heartbeat.MaxDurationSec != 1800 || len(c.Agent.Env) != 1 {
		t.Fatalf("got %+v", c)
	}
}

func TestParse_Budget(t *testing.T) {
	c, err := Parse("cfg.json", []byte(`{"budget":{"runTokens":5000,"runUSD":0.25,"ticketTokens":200000,"ticketUSD":3,"projectDailyTokens":1000000,"projectDailyUSD":12.5}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Budget{RunTokens: 5000, RunUSD: 0.25, TicketTokens: 200000, TicketUSD: 3, ProjectDailyTokens: 1000000, ProjectDailyUSD: 12.5}
	if c.Budget != want {
		t.Fatalf("budget = %+v, want %+v", c.Budget, want)
	}
	if d := Default().Budget; d != (Budget{TicketUSD: 10, ProjectDailyUSD: 25}) {
		t.Fatalf("default budget = %+v, want $10 a ticket and $25 a project a day", d)
	}
	// A file without budget keys (written before they had defaults, or by
	// hand) keeps meaning no cap.
	c, err = Parse("cfg.json", []byte(`{"model":"openai/gpt-5"}`))
	if err != nil || c.Budget != (Budget{}) {
		t.Fatalf("budget of a file without budget keys = %+v, %v; want no caps", c.Budget, err)
	}
	// A new data directory's file holds the caps, and reads back with them.
	b, err := Default().MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	if c, err = Parse("cfg.json", b); err != nil || c.Budget != Default().Budget {
		t.Fatalf("budget of a new file = %+v, %v; want the defaults", c.Budget, err)
	}
}

func TestConfig_RoundTrip(t *testing.T) {
	c := Default()
	b, err := c.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"maxConcurrentAgents": "auto"`) {
		t.Fatalf("default file lacks auto:\n%s", b)
	}
	back, err := Parse("x", b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.List(), c.List(); len(got) != len(want) {
		t.Fatalf("list differs")
	}
	for i, s := range back.List() {
		if s != c.List()[i] {
			t.Errorf("key %s: %q after round trip, want %q", s.Key, s.Value, c.List()[i].Value)
		}
	}
}

func TestConfig_Set(t *testing.T) {
	c := Default()
	tests := []struct{ key, value, want, err string }{
		{"heartbeat.intervalSec", "120", "120", ""},
		{"heartbeat.intervalSec", "abc", "", `heartbeat.intervalSec: must be a whole number from 10 to 86400, got "abc"`},
		{"heartbeat.intervalSec", "5", "", "got 5"},
		{"heartbeat.maxConcurrentAgents", "3", "3", ""},
		{"heartbeat.maxConcurrentAgents", "auto", "auto", ""},
		{"agent.env", "GOPATH, GOFLAGS", "GOPATH,GOFLAGS", ""},
		{"agent.env", "", "", ""},
		{"model", "ollama/qwen3:8b", "ollama/qwen3:8b", ""},
		{"budget.runTokens", "20000", "20000", ""},
		{"budget.runTokens", "-5", "", "budget.runTokens: must be a whole number from 0 to 1000000000, got -5"},
		{"budget.runUSD", "0.5", "0.5", ""},
		{"budget.ticketUSD", "$2.50", "2.5", ""},
		{"budget.projectDailyUSD", "0", "0", ""},
		{"budget.projectDailyUSD", "lots", "", `budget.projectDailyUSD: must be an amount of US dollars from 0 to 100000, got "lots"`},
		{"budget.projectDailyUSD", "NaN", "", `got "NaN"`},
		{"budget.runUSD", "-1", "", "budget.runUSD: must be an amount of US dollars from 0 to 100000, got -1"},
		{"nope", "1", "", `unknown key "nope"; known keys are`},
		{"modle", "x/y", "", `unknown key "modle" (did you mean "model"?); known keys are`},
		{"budget.ticketusd", "1", "", `unknown key "budget.ticketusd" (did you mean "budget.ticketUSD"?)`},
	}
	for _, tt := range tests {
		got, err := c.Set(tt.key, tt.value)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Set(%s, %s) error = %v, want %q", tt.key, tt.value, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Set(%s, %s): %v", tt.key, tt.value, err)
			continue
		}
		if v, _ := got.Get(tt.key); v != tt.want {
			t.Errorf("after Set(%s, %s), Get = %q, want %q", tt.key, tt.value, v, tt.want)
		}
	}
}

func TestInit_CreatesLayoutOnce(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "data"))
	res, err := Init(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Created) != 6 {
		t.Fatalf("created %v, want 4 dirs and 2 files", res.Created)
	}
	tok, err := os.ReadFile(d.WebTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.TrimSpace(string(tok))) != 64 {
		t.Fatalf("token %q is not 32 bytes of hex", tok)
	}
	for _, dir := range []string{string(d), d.Sessions(), d.Worktrees()} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", dir, fi.Mode().Perm(), err)
		}
	}
	fi, _ := os.Stat(d.WebTokenFile())
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("web-token mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := Load(d.ConfigFile()); err != nil {
		t.Fatalf("default config does not load: %v", err)
	}
	res, err = Init(d)
	if err != nil || len(res.Created) != 0 {
		t.Fatalf("second Init created %v, %v", res.Created, err)
	}
	tok2, _ := os.ReadFile(d.WebTokenFile())
	if string(tok) != string(tok2) {
		t.Fatal("second Init replaced the web token")
	}
}

func TestInit_Concurrent(t *testing.T) {
	d := Dir(t.TempDir())
	var wg sync.WaitGroup
	created := make([][]string, 8)
	for i := range created {
		wg.Go(func() {
			res, err := Init(d)
			if err != nil {
				t.Error(err)
			}
			created[i] = res.Created
		})
	}
	wg.Wait()
	n := 0
	for _, c := range created {
		for _, f := range c {
			if f == "web-token" {
				n++
			}
		}
	}
	if n != 1 {
		t.Fatalf("web-token created %d times, want once", n)
	}
	entries, _ := os.ReadDir(string(d))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestSave_RefusesInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	c := Default()
	c.Heartbeat.IntervalSec = 1
	if err := Save(path, c); err == nil || !strings.Contains(err.Error(), "heartbeat.intervalSec") {
		t.Fatalf("Save = %v, want an error naming the key", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("invalid config was written")
	}
}
