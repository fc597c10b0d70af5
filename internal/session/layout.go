package session

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The names of a ticket's files in its session directory.
const (
	// TranscriptFileName is a ticket's transcript, resumed across beats.
	TranscriptFileName = "transcript.jsonl"
	// LiveFileName is the side file beside a transcript holding the
	// assistant message being streamed (see LiveWriter).
	LiveFileName = "live.jsonl"
)

// runsDir is the directory of `bonsai run`'s sessions under the root.
const runsDir = "cli"

// Layout is where session files live under the sessions directory
// (docs/design.md §2):
//
//	{Root}/{projectID}/{ticketID}/transcript.jsonl  a ticket's transcript
//	{Root}/{projectID}/{ticketID}/live.jsonl        the message being streamed
//	{Root}/cli/--{cwd, / as -}--/{FileName}         `bonsai run` sessions
type Layout struct {
	// Root is the sessions directory, $BONSAI_DATA_DIR/sessions.
	Root string
}

// TicketDir returns the directory of a ticket's session files. IDs that
// could name a path outside it (empty, holding a path separator, or
// starting with a dot) are refused.
func (l Layout) TicketDir(projectID, ticketID string) (string, error) {
	if err := checkID(projectID); err != nil {
		return "", fmt.Errorf("session directory: project %w", err)
	}
	if err := checkID(ticketID); err != nil {
		return "", fmt.Errorf("session directory: ticket %w", err)
	}
	return filepath.Join(l.Root, projectID, ticketID), nil
}

// Transcript returns the path of a ticket's transcript.
func (l Layout) Transcript(projectID, ticketID string) (string, error) {
	dir, err := l.TicketDir(projectID, ticketID)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, TranscriptFileName), nil
}

// Live returns the path of a ticket's live file.
func (l Layout) Live(projectID, ticketID string) (string, error) {
	t, err := l.Transcript(projectID, ticketID)
	if err != nil {
		return "", err
	}
	return LivePath(t), nil
}

// LivePath returns the live file beside a transcript ("" for none).
func LivePath(transcript string) string {
	if transcript == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(transcript), LiveFileName)
}

// RunDir returns the directory of `bonsai run`'s sessions in the working
// directory cwd: cli/--home-me-project-- for /home/me/project. New
// sessions in it are named by FileName.
func (l Layout) RunDir(cwd string) string {
	s := strings.TrimLeft(filepath.ToSlash(cwd), "/")
	s = strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(s)
	return filepath.Join(l.Root, runsDir, "--"+s+"--")
}

// checkID refuses an ID that is not a single path element of its own.
func checkID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("id is empty")
	case strings.HasPrefix(id, "."):
		return fmt.Errorf("id %q starts with a dot", id)
	case strings.ContainsAny(id, `/\`) || filepath.Base(id) != id:
		return fmt.Errorf("id %q holds a path separator", id)
	}
	return nil
}
