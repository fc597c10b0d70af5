package cli

import (
	"encoding/json"
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/autostart"
	"github.com/bonsai-run/bonsai/internal/cmd/servicecmd"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
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

// service returns the heartbeat service of this machine
// (servicecmd.Find).
func (a *app) service() (autostart.Service, error) { return servicecmd.Find(a.kit()) }

// readServiceBeat reads the last service beat; nil when there is none.
func readServiceBeat(d config.Dir) (*autostart.Beat, error) { return autostart.ReadBeat(string(d)) }
