package engine

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/beneath"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// State is what a ticket keeps of an engine between beats, in
// engines/<name>.json beside its transcript.
type State struct {
	// Session is the vendor session id to resume.
	Session string `json:"session"`
	// Total is the session's usage so far, for engines that report
	// cumulative totals (Done.Cumulative).
	Total llm.Usage `json:"total,omitzero"`
}

// The two directories of a ticket's engine state, below StateRoot, one
// per engine in each.
const (
	// configDir holds what the runtime writes for the CLI to read (the
	// system prompt, Codex's hook, OpenCode's plugin): read-only in the
	// sandbox.
	configDir = "config"
	// homeDir holds the CLI's own files (its config directory, sessions,
	// database): writable in the sandbox.
	homeDir = "home"
)

// StateRoot is the directory of the engines' state for ticket number of
// project slug: engines/<slug>/<number> in the data directory, which the
// sandbox hides. It is never derived from anything in the worktree.
func StateRoot(dataDir, slug string, number int) string {
	return filepath.Join(dataDir, stateRel(slug, number))
}

func stateRel(slug string, number int) string {
	return filepath.Join("engines", slug, strconv.Itoa(number))
}

// StateDirs creates the ticket's engine state directories and returns
// them: config, which the sandbox binds read-only, and home, which it
// binds writable (both at their own path). The runtime creates and writes
// them only through internal/beneath: what the CLI can write there is
// hostile, and a link it planted is refused, never followed.
func StateDirs(dataDir, slug string, number int) (config, home string, err error) {
	if dataDir == "" || slug == "" || number <= 0 {
		return "", "", fmt.Errorf("engine state: no data directory, project or ticket (%q, %q, %d)", dataDir, slug, number)
	}
	rel := stateRel(slug, number)
	for _, d := range []string{configDir, homeDir} {
		if err := beneath.MkdirAll(dataDir, filepath.Join(rel, d), 0o700); err != nil {
			return "", "", fmt.Errorf("engine state: %w", err)
		}
	}
	root := filepath.Join(dataDir, rel)
	return filepath.Join(root, configDir), filepath.Join(root, homeDir), nil
}

// engineDirs returns engine name's own directories in the ticket's state,
// created: config (written by writeFiles) and home (the CLI's).
func engineDirs(dataDir, slug string, number int, name string) (config, home string, err error) {
	cfg, hm, err := StateDirs(dataDir, slug, number)
	if err != nil {
		return "", "", err
	}
	for _, d := range []string{cfg, hm} {
		if err := beneath.MkdirAll(d, name, 0o700); err != nil {
			return "", "", fmt.Errorf("engine state: %w", err)
		}
	}
	return filepath.Join(cfg, name), filepath.Join(hm, name), nil
}

// writeFiles writes the command's files into the engine's config
// directory, each replacing whatever is at its name (a link included);
// a name may have directories, created as needed.
func writeFiles(dir string, files map[string]string) error {
	for name, data := range files {
		if sub := filepath.Dir(name); sub != "." {
			if err := beneath.MkdirAll(dir, sub, 0o700); err != nil {
				return fmt.Errorf("engine state: %w", err)
			}
		}
		if err := beneath.WriteFile(dir, name, []byte(data), 0o600); err != nil {
			return fmt.Errorf("engine state: %w", err)
		}
	}
	return nil
}

func statePath(transcript, name string) string {
	return filepath.Join(filepath.Dir(transcript), "engines", name+".json")
}

// LoadState reads the engine's state for the ticket whose transcript is
// at transcript; none is the zero State.
func LoadState(transcript, name string) (State, error) {
	var st State
	b, err := os.ReadFile(statePath(transcript, name))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("%s: %w", statePath(transcript, name), err)
	}
	return st, nil
}

// saveState writes the engine's state, whole.
func saveState(transcript, name string, st State) error {
	p := statePath(transcript, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(st)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// newUUID returns a random version 4 UUID, the session id form Claude
// Code takes.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// maxSummary caps the summary that primes a new session.
const maxSummary = 8 << 10

// Summary is the primer of a new vendor session when the old one cannot
// be resumed: the text of the transcript's last messages, newest last,
// at most maxSummary bytes. Empty when the transcript holds nothing.
func Summary(transcript string) string {
	f, err := os.Open(transcript)
	if err != nil {
		return ""
	}
	defer f.Close()
	_, entries, _, err := session.Read(f)
	if err != nil {
		return ""
	}
	var lines []string
	size := 0
	for i := len(entries) - 1; i >= 0 && size < maxSummary; i-- {
		m := entries[i].Message
		if m == nil {
			continue
		}
		var line string
		switch m.Role {
		case llm.RoleAssistant:
			line = "agent: " + m.Text()
			for _, c := range m.ToolCalls() {
				line += fmt.Sprintf(" [called %s %s]", c.Name, cut(string(c.Arguments), 200))
			}
		case llm.RoleToolResult:
			line = fmt.Sprintf("%s result: %s", m.ToolName, cut(m.Text(), 300))
		case llm.RoleUser:
			line = "task: " + cut(m.Text(), 500)
		}
		size += len(line) + 1
		lines = append(lines, line)
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return strings.Join(lines, "\n")
}

func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
