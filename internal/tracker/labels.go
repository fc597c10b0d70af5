package tracker

import (
	"slices"
	"strings"
)

// StatePrefix starts the labels that mirror a ticket's state on an
// issue ("bonsai:in-progress"); Bonsai adds and removes only those.
const StatePrefix = "bonsai:"

// StateLabel is the label that mirrors ticket state s ("IN_PROGRESS" →
// "bonsai:in-progress").
func StateLabel(s string) string {
	return StatePrefix + strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

// StateChange returns the labels to add and remove so that an issue
// carrying current mirrors ticket state s: its label added when missing,
// every other state label removed; other labels are left alone.
func StateChange(current []string, s string) (add, remove []string) {
	want := StateLabel(s)
	if !slices.Contains(current, want) {
		add = []string{want}
	}
	for _, l := range current {
		if strings.HasPrefix(l, StatePrefix) && l != want {
			remove = append(remove, l)
		}
	}
	return add, remove
}
