package autostart

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// BeatFile is where a beat fired by the service (heartbeat --service)
// leaves its outcome in the data directory, for 'bonsai service status':
// also a beat that failed before it could start, which heartbeat.json
// never sees.
const BeatFile = "service-beat.json"

// Beat is the outcome of the last beat the service fired.
type Beat struct {
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// Error is why the beat failed; empty when it ran.
	Error string `json:"error,omitempty"`
	// Report is what the beat did (a heartbeat.Report), when it ran.
	Report json.RawMessage `json:"report,omitempty"`
	PID    int             `json:"pid"`
}

// RecordBeat writes b in the data directory dataDir, whole or not at all
// (a temporary file renamed into place).
func RecordBeat(dataDir string, b Beat) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dataDir, BeatFile)
	tmp, err := os.CreateTemp(dataDir, "."+BeatFile+".tmp*")
	if err != nil {
		return err
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
	return err
}

// ReadBeat reads the last service beat of the data directory dataDir;
// nil when there is none.
func ReadBeat(dataDir string) (*Beat, error) {
	path := filepath.Join(dataDir, BeatFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var b Beat
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &b, nil
}
