package forgesync

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// limits are the forges that asked to wait (a rate limit with its
// Retry-After), by API base URL, kept between beats in Options.LimitsFile:
// a beat asks no forge before the time it gave.
type limits map[string]time.Time

// loadLimits reads the limits file; a missing or unreadable one is empty.
func (f *Forges) loadLimits() limits {
	out := limits{}
	if f.opts.LimitsFile == "" {
		return out
	}
	b, err := os.ReadFile(f.opts.LimitsFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			f.log.Warn("read forge rate limits", "err", err)
		}
		return out
	}
	if err := json.Unmarshal(b, &out); err != nil {
		f.log.Warn("read forge rate limits", "file", f.opts.LimitsFile, "err", err)
		return limits{}
	}
	return out
}

// saveLimits writes the limits still in force.
func (f *Forges) saveLimits(l limits) {
	if f.opts.LimitsFile == "" {
		return
	}
	now := f.opts.Now()
	for k, until := range l {
		if !until.After(now) {
			delete(l, k)
		}
	}
	b, _ := json.Marshal(l)
	tmp, err := os.CreateTemp(filepath.Dir(f.opts.LimitsFile), ".forge-limits-*")
	if err == nil {
		_, err = tmp.Write(b)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), f.opts.LimitsFile)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		f.log.Warn("save forge rate limits", "err", err)
	}
}
