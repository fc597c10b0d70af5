package tools

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Search selects how grep and find search.
type Search int

const (
	// SearchAuto uses ripgrep when it is on PATH and the Go search otherwise.
	SearchAuto Search = iota
	// SearchGo always uses the built-in Go search.
	SearchGo
	// SearchRipgrep always uses ripgrep and fails if it is missing.
	SearchRipgrep
)

// Options configures the tool set.
type Options struct {
	// Search selects the grep/find backend.
	Search Search
	// Now is the clock for durations; nil means time.Now.
	Now func() time.Time
	// NewID names bash output files; nil means random hex.
	NewID func() string
	// Skills, when not nil, is a directory outside the workspace (the
	// user's skills) from which read serves paths under SkillsPrefix.
	Skills       executor.Executor
	SkillsPrefix string
	// Chromium, when not empty, is the Chromium program the screenshot
	// tool runs through the executor (FindChromium); empty offers no
	// screenshot tool.
	Chromium string

	// maxGrepFile, when positive, replaces maxGrepFileBytes (tests).
	maxGrepFile int64
}

// env is what the tools of one set share.
type env struct {
	ex    executor.Executor
	opts  Options
	locks *fileLocks

	rgOnce sync.Once
	rgOK   bool

	tmpOnce sync.Mutex
	tmpDir  string // where full outputs go, once chosen
}

// New returns the seven coding tools working through ex, in the order
// read, write, edit, bash, grep, find, ls, and screenshot after them when
// opts.Chromium names a Chromium.
func New(ex executor.Executor, opts Options) []tool.Tool {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = randomID
	}
	e := &env{ex: ex, opts: opts, locks: &fileLocks{}}
	read := newRead(e)
	if opts.Skills != nil && opts.SkillsPrefix != "" {
		read.skills = newRead(&env{ex: opts.Skills, opts: opts, locks: &fileLocks{}})
	}
	ts := []tool.Tool{
		read, newWrite(e), newEdit(e), newBash(e), newGrep(e), newFind(e), newLs(e),
	}
	if opts.Chromium != "" {
		ts = append(ts, newScreenshot(e, opts.Chromium))
	}
	return ts
}

// Lookup returns the tool called name, or nil.
func Lookup(ts []tool.Tool, name string) tool.Tool {
	for _, t := range ts {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

func randomID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
