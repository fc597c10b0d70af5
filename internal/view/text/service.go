package text

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/bonsai-run/bonsai/internal/autostart"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// WriteServiceBeat writes what 'bonsai service status' says of b, the
// last beat the service fired (read from the file where), or, when it
// fired none (b nil), of the last beat of any process (anyBeat, nil when
// none ran).
func WriteServiceBeat(w io.Writer, b *autostart.Beat, where string, anyBeat *heartbeat.Report, now time.Time) error {
	if b == nil {
		fmt.Fprintln(w, "The service has fired no beat yet.")
		if anyBeat != nil {
			fmt.Fprintf(w, "The last beat of any process (bonsai up, or by hand) started %s.\n", RelTime(now, anyBeat.StartedAt))
		}
		return nil
	}
	took := b.FinishedAt.Sub(b.StartedAt).Round(time.Millisecond)
	fmt.Fprintf(w, "Last beat fired by the service: started %s (%s), took %s\n",
		RelTime(now, b.StartedAt), b.StartedAt.Local().Format("2006-01-02 15:04:05"), took)
	if b.Error != "" {
		fmt.Fprintf(w, "  failed: %s\n", termsafe.Line(b.Error))
		return nil
	}
	if len(b.Report) == 0 {
		return nil
	}
	var rep heartbeat.Report
	if err := json.Unmarshal(b.Report, &rep); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	return WriteReport(w, rep)
}
