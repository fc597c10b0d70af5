package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
)

// Run runs the contract suite. open must return a new, empty store for each
// subtest, one that reads the time from now and from nothing else; Run
// closes it when the subtest ends. The subtests run in parallel, so open is
// called from several goroutines at once. Given group names (such as
// "Move"), Run runs those groups of the suite alone.
func Run(t *testing.T, open func(t *testing.T, now func() time.Time) store.Store, only ...string) {
	type group struct {
		name  string
		cases []testCase
	}
	groups := []group{
		{"Project", projectCases},
		{"Ticket", ticketCases},
		{"Move", moveCases},
		{"Comment", commentCases},
		{"Approval", approvalCases},
		{"Run", runCases},
		{"Event", eventCases},
		{"Pick", pickCases},
		{"Links", linkCases},
		{"Notify", notifyCases},
		{"Schedule", scheduleCases},
		{"Lease", leaseCases},
		{"ManyAgents", manyAgentsCases},
		{"Worker", workerCases},
		{"Landing", landingCases},
		{"Review", reviewCases},
		{"Transcript", transcriptCases},
		{"Tracker", trackerCases},
		{"Hook", hookCases},
		{"Attachment", attachmentCases},
		{"NotifyAttachments", notifyAttachmentCases},
		{"Variants", variantCases},
	}
	for _, name := range only {
		if !slices.ContainsFunc(groups, func(g group) bool { return g.name == name }) {
			t.Fatalf("storetest: no group %q in the suite", name)
		}
	}
	for _, g := range groups {
		if len(only) > 0 && !slices.Contains(only, g.name) {
			continue
		}
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					clock := newClock()
					s := open(t, clock.Now)
					t.Cleanup(func() {
						if err := s.Close(); err != nil {
							t.Errorf("Close: %v", err)
						}
					})
					tc.fn(t, s, clock)
				})
			}
		})
	}
}

// testCase is one contract test.
type testCase struct {
	name string
	fn   func(t *testing.T, s store.Store, clock *clock)
}
