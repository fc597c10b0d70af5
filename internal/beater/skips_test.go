package beater

import (
	"slices"
	"testing"
)

func TestSkipChanges_OncePerChange(t *testing.T) {
	noKey := map[string]string{"demo#1": "no API key: set ANTHROPIC_API_KEY"}
	steps := []struct {
		cur  map[string]string
		want []string
	}{
		{noKey, []string{"demo#1 not run: no API key: set ANTHROPIC_API_KEY"}},
		{noKey, nil},
		{map[string]string{"demo#1": "provider anthropic is paused", "web#2": "budget"},
			[]string{"demo#1 not run: provider anthropic is paused", "web#2 not run: budget"}},
		{map[string]string{"web#2": "budget"}, []string{"demo#1 is no longer skipped"}},
		{map[string]string{}, []string{"web#2 is no longer skipped"}},
		{map[string]string{}, nil},
	}
	var prev map[string]string
	for i, s := range steps {
		if got := skipChanges(prev, s.cur); !slices.Equal(got, s.want) {
			t.Errorf("beat %d: got %q, want %q", i+1, got, s.want)
		}
		prev = s.cur
	}
}
