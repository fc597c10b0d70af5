package beater

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// noteSkips tells the person why the last beat skipped tickets, once per
// change: a reason already said is not said again every beat.
func (b *Beater) noteSkips() {
	st := b.readState()
	if st.LastBeat == nil || st.LastBeat.Skipped {
		return
	}
	cur := map[string]string{}
	for _, r := range st.LastBeat.Runs {
		if r.Skipped != "" {
			cur[r.Ticket] = r.Skipped
		}
	}
	for _, line := range skipChanges(b.skips, cur) {
		fmt.Fprintf(b.Say, "%s %s\n", time.Now().Format("15:04:05"), line)
	}
	b.skips = cur
}

// skipChanges lists, by ticket, the skip reasons in cur that prev did not
// have, and the tickets prev skipped that cur does not.
func skipChanges(prev, cur map[string]string) []string {
	var out []string
	for _, t := range slices.Sorted(maps.Keys(cur)) {
		if prev[t] != cur[t] {
			out = append(out, termsafe.Line(t+" not run: "+cur[t]))
		}
	}
	for _, t := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := cur[t]; !ok {
			out = append(out, termsafe.Line(t+" is no longer skipped"))
		}
	}
	return out
}
