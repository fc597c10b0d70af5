package cli

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/autostart"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
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
// service has not fired one yet (text.WriteServiceBeat).
func writeServiceBeat(w io.Writer, d config.Dir, now time.Time) error {
	b, err := readServiceBeat(d)
	if err != nil {
		return err
	}
	return text.WriteServiceBeat(w, b, d.Path(autostart.BeatFile), heartbeat.ReadState(d.Path("heartbeat.json")).LastBeat, now)
}
