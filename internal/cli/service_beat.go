package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/autostart"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// recordServiceBeat writes the outcome of a beat the service fired
// (autostart.RecordBeat). It is best effort: a beat never fails for want
// of its record.
func recordServiceBeat(a *app, started time.Time, rep *heartbeat.Report, beatErr error) {
	d, err := config.DefaultDir(a.env)
	if err != nil {
		return
	}
	b := autostart.Beat{StartedAt: started.UTC(), FinishedAt: a.now().UTC(), PID: os.Getpid()}
	if beatErr != nil {
		b.Error = beatErr.Error()
	}
	if rep != nil {
		if b.Report, err = json.Marshal(rep); err != nil {
			return
		}
	}
	autostart.RecordBeat(string(d), b)
}

// readServiceBeat reads the last service beat; nil when there is none.
func readServiceBeat(d config.Dir) (*autostart.Beat, error) { return autostart.ReadBeat(string(d)) }

// writeServiceBeat writes what 'bonsai service status' says of the last
// beat the service fired, or of the last beat of any process when the
// service has not fired one yet.
func writeServiceBeat(w io.Writer, d config.Dir, now time.Time) error {
	b, err := readServiceBeat(d)
	if err != nil {
		return err
	}
	if b == nil {
		fmt.Fprintln(w, "The service has fired no beat yet.")
		if st := heartbeat.ReadState(d.Path("heartbeat.json")); st.LastBeat != nil {
			fmt.Fprintf(w, "The last beat of any process (bonsai up, or by hand) started %s.\n", text.RelTime(now, st.LastBeat.StartedAt))
		}
		return nil
	}
	took := b.FinishedAt.Sub(b.StartedAt).Round(time.Millisecond)
	fmt.Fprintf(w, "Last beat fired by the service: started %s (%s), took %s\n",
		text.RelTime(now, b.StartedAt), b.StartedAt.Local().Format("2006-01-02 15:04:05"), took)
	if b.Error != "" {
		fmt.Fprintf(w, "  failed: %s\n", termsafe.Line(b.Error))
		return nil
	}
	if len(b.Report) == 0 {
		return nil
	}
	var rep heartbeat.Report
	if err := json.Unmarshal(b.Report, &rep); err != nil {
		return fmt.Errorf("%s: %v", d.Path(autostart.BeatFile), err)
	}
	return text.WriteReport(w, rep)
}
