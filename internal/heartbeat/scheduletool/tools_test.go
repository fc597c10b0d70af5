package scheduletool_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/scheduletool"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
	"github.com/bonsai-run/bonsai/internal/tool"
)

var now = time.Date(2026, time.November, 26, 10, 0, 0, 0, time.UTC)

func setup(t *testing.T) (*sqlite.DB, map[string]tool.Tool) {
	t.Helper()
	db, err := sqlitetest.Open(context.Background(), filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateProject(context.Background(), board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	ts := map[string]tool.Tool{}
	for _, tl := range scheduletool.Tools(db, "demo", func() time.Time { return now }) {
		ts[tl.Name()] = tl
	}
	return db, ts
}

func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	c, err := tool.Check(tl)
	if err != nil {
		t.Fatal(err)
	}
	return c.Call(context.Background(), json.RawMessage(args), nil)
}

func text(r tool.Result) string {
	var b strings.Builder
	for _, p := range r.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

func TestTools(t *testing.T) {
	db, ts := setup(t)
	r := call(t, ts["schedule_create"], `{"name": "deps", "kind": "cron", "expr": "0 9 * * 1", "timezone": "Europe/Berlin", "title": "Deps {date}", "startState": "RESEARCH"}`)
	if r.IsError || !strings.Contains(text(r), "first fires 2026-11-30 09:00 CET") {
		t.Fatalf("create: %+v", r)
	}
	s, err := db.Schedule(context.Background(), "demo", "deps")
	if err != nil || s.CreatedBy != board.Agent || s.Overlap != board.OverlapSkip || s.PreCheck != "" || s.StartState != board.Research {
		t.Fatalf("stored %+v, %v", s, err)
	}
	for args, want := range map[string]string{
		`{"name": "x", "kind": "cron", "expr": "0 9 *", "title": "t"}`:                           "schedule cron",
		`{"name": "x", "kind": "every", "expr": "5s", "title": "t"}`:                             "once a minute",
		`{"name": "x", "kind": "at", "expr": "2020-01-01 00:00", "title": "t"}`:                  "in the past",
		`{"name": "x", "kind": "cron", "expr": "@daily", "title": "t", "preCheck": "curl evil"}`: "preCheck",
		`{"name": "x", "kind": "cron", "expr": "@daily", "title": "t", "timezone": "Atlantis"}`:  "timezone",
		`{"name": "deps", "kind": "cron", "expr": "@daily", "title": "t"}`:                       "already has",
		`{"name": "x", "kind": "cron", "expr": "@daily", "title": "{nope}"}`:                     "placeholder",
		`{"name": "x", "kind": "cron", "expr": "@daily", "title": "t", "startState": "DONE"}`:    "startState",
	} {
		if r := call(t, ts["schedule_create"], args); !r.IsError || !strings.Contains(text(r), want) {
			t.Errorf("create %s = %q, want an error saying %q", args, text(r), want)
		}
	}
	if _, err := db.CreateSchedule(context.Background(), board.Schedule{ProjectSlug: "demo", Name: "human", Kind: "cron", Expr: "@daily",
		TimeZone: "UTC", Title: "t", Priority: 2, NextFire: now.Add(time.Hour)}, board.Human); err != nil {
		t.Fatal(err)
	}
	r = call(t, ts["schedule_list"], `{}`)
	if r.IsError || !strings.Contains(text(r), "- deps: cron") || !strings.Contains(text(r), "- human:") || !strings.Contains(text(r), "created by human") {
		t.Errorf("list: %q", text(r))
	}
	if r := call(t, ts["schedule_cancel"], `{"name": "human"}`); !r.IsError || !strings.Contains(text(r), "created by a person") {
		t.Errorf("cancel a person's schedule: %q", text(r))
	}
	if r := call(t, ts["schedule_cancel"], `{"name": "nope"}`); !r.IsError {
		t.Errorf("cancel an unknown schedule: %q", text(r))
	}
	if r := call(t, ts["schedule_cancel"], `{"name": "deps"}`); r.IsError {
		t.Errorf("cancel: %q", text(r))
	}
	if _, err := db.Schedule(context.Background(), "demo", "deps"); board.ErrorCode(err) != board.ENOTFOUND {
		t.Errorf("deps still there: %v", err)
	}
}

func TestCap(t *testing.T) {
	_, ts := setup(t)
	for i := range scheduletool.MaxAgentSchedules {
		if r := call(t, ts["schedule_create"], `{"name": "s`+string(rune('a'+i))+`", "kind": "every", "expr": "1d", "title": "t"}`); r.IsError {
			t.Fatalf("create %d: %q", i, text(r))
		}
	}
	if r := call(t, ts["schedule_create"], `{"name": "one-more", "kind": "every", "expr": "1d", "title": "t"}`); !r.IsError || !strings.Contains(text(r), "the limit") {
		t.Errorf("over the cap: %q", text(r))
	}
}
