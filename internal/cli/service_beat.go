package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// serviceBeatFile is where a beat fired by the service (heartbeat
// --service) leaves its outcome for 'bonsai service status': also a beat
// that failed before it could start, which heartbeat.json never sees.
const serviceBeatFile = "service-beat.json"

// serviceBeat is the outcome of the last beat the service fired.
type serviceBeat struct {
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// Error is why the beat failed; empty when it ran.
	Error string `json:"error,omitempty"`
	// Report is what the beat did, when it ran.
	Report *heartbeat.Report `json:"report,omitempty"`
	PID    int               `json:"pid"`
}

// recordServiceBeat writes the outcome of a beat the service fired. It is
// best effort: a beat never fails for want of its record.
func recordServiceBeat(a *app, started time.Time, rep *heartbeat.Report, beatErr error) {
	d, err := config.DefaultDir(a.env)
	if err != nil {
		return
	}
	b := serviceBeat{StartedAt: started.UTC(), FinishedAt: a.now().UTC(), Report: rep, PID: os.Getpid()}
	if beatErr != nil {
		b.Error = beatErr.Error()
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return
	}
	path := d.Path(serviceBeatFile)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+serviceBeatFile+".tmp*")
	if err != nil {
		return
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// readServiceBeat reads the last service beat; nil when there is none.
func readServiceBeat(d config.Dir) (*serviceBeat, error) {
	data, err := os.ReadFile(d.Path(serviceBeatFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var b serviceBeat
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: %v", d.Path(serviceBeatFile), err)
	}
	return &b, nil
}

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
	if b.Report != nil {
		return text.WriteReport(w, *b.Report)
	}
	return nil
}
