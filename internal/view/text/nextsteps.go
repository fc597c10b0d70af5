package text

import (
	"fmt"
	"io"

	"github.com/bonsai-run/bonsai/internal/view"
)

// WriteNextSteps prints what `bonsai up` says stands between the board
// and agents at work (view.NextSteps); nothing when no step is left.
func WriteNextSteps(w io.Writer, steps []view.Step) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintln(w, "Next steps before agents can work:")
	for i, st := range steps {
		fmt.Fprintf(w, "  %d. %s\n     %s  (or %s in the web UI)\n", i+1, st.Text, st.Command, st.LinkText)
	}
	fmt.Fprintln(w, "Then add a ticket and hand it to the agent; keep this running, it fires the heartbeat that runs the agents.")
}
