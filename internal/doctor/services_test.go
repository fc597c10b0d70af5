package doctor

import (
	"errors"
	"testing"
	"time"
)

func TestServices_WhatTheServiceAndLastBeatSay(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	minute := time.Minute
	for _, tc := range []struct {
		name      string
		f         ServiceFacts
		last      time.Time
		svc, beat Status
	}{
		{"no manager", ServiceFacts{Err: errors.New("no systemd")}, time.Time{}, Skip, Skip},
		{"unreadable record", ServiceFacts{Manager: "systemd", Installed: true, LastErr: errors.New("torn")}, now.Add(-time.Hour), Fail, Warn},
		{"not installed", ServiceFacts{Manager: "systemd"}, now.Add(-time.Second), Warn, OK},
		{"beating", ServiceFacts{Manager: "systemd", Installed: true, Last: &ServiceBeat{StartedAt: now.Add(-30 * time.Second)}}, now.Add(-30 * time.Second), OK, OK},
	} {
		cs := Services(tc.f, now, tc.last, minute)
		if len(cs) != 2 || cs[0].Status != tc.svc || cs[1].Status != tc.beat {
			t.Errorf("%s: %+v; want service %s, last beat %s", tc.name, cs, tc.svc, tc.beat)
		}
	}
}
