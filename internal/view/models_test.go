package view

import (
	"reflect"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestModelStatuses_OncePerModel(t *testing.T) {
	t.Parallel()
	ps := []board.Project{{Slug: "a", Active: true}, {Slug: "b", Active: true}, {Slug: "c"}, {Slug: "d", Active: true}}
	ps[1].Agent.Model = "openai/gpt-5"
	ps[3].Agent.Model = "anthropic/m"
	got := ModelStatuses(ps, "anthropic/m", ModelChecks{
		Problem:   func(id string) string { return map[string]string{"openai/gpt-5": "no API key"}[id] },
		KeySource: func(p string) string { return "stored" },
		Unpriced:  func(id string) bool { return id == "anthropic/m" },
	})
	want := []ModelStatus{
		{Model: "anthropic/m", Projects: []string{"a", "d"}, KeySource: "stored", Unpriced: true},
		{Model: "openai/gpt-5", Projects: []string{"b"}, Problem: "no API key"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := ModelStatuses(nil, "x/y", ModelChecks{}); got == nil || len(got) != 0 {
		t.Errorf("no project: %#v", got)
	}
}
