package doctor

import (
	"context"
	"errors"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

type probeAnswers map[string]error

func (a probeAnswers) Probe(_ context.Context, p board.Project) (string, error) {
	if err := a[p.Slug]; err != nil {
		return "", err
	}
	return "3 issues match", nil
}

func TestTrackers(t *testing.T) {
	t.Parallel()
	gh := board.AgentSettings{Tracker: board.TrackerGitHub}
	projects := []board.Project{
		{Slug: "plain", Active: true},
		{Slug: "asleep", Agent: gh},
		{Slug: "ok", Active: true, Agent: gh},
		{Slug: "revoked", Active: true, Agent: gh},
	}
	made := 0
	prober := func() (TrackerProber, error) {
		made++
		return probeAnswers{"revoked": errors.New("401 Bad credentials")}, nil
	}
	got := Trackers(t.Context(), projects, prober, func(error) string { return "store a new token" })
	if made != 1 || len(got) != 2 {
		t.Fatalf("made %d probers, checks %+v; want one prober and the two active trackers checked", made, got)
	}
	if got[0].Name != "tracker ok (github)" || got[0].Status != OK || got[0].Detail != "3 issues match" {
		t.Errorf("ok = %+v", got[0])
	}
	if got[1].Status != Fail || got[1].Detail != "401 Bad credentials" || got[1].Fix != "store a new token" {
		t.Errorf("revoked = %+v", got[1])
	}
	// Without a tracker nothing is opened.
	if got := Trackers(t.Context(), projects[:2], prober, nil); got != nil || made != 1 {
		t.Errorf("no trackers: %+v, %d probers made", got, made)
	}
}
