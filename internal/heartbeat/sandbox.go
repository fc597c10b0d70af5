package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// SandboxFailure is a project whose commands must run in a sandbox that
// could not start, as heartbeat.json keeps it: the first skip of a streak
// posts a comment, the next ones do not. A beat that finds the project's
// sandbox usable again (or off) ends the streak.
type SandboxFailure struct {
	// Since is when the streak began; Ticket is the ticket its comment
	// went on.
	Since  time.Time `json:"since"`
	Ticket string    `json:"ticket"`
	Error  string    `json:"error"`
}

// SandboxError is the failure the last beat that tried a sandbox found,
// of the first project in slug order that has one, or nil.
func (st *State) SandboxError() error {
	for _, slug := range slices.Sorted(maps.Keys(st.Sandbox)) {
		if f := st.Sandbox[slug]; f.Error != "" {
			return errors.New(f.Error)
		}
	}
	return nil
}

// checkSandbox asks check (Options.Sandbox; nil checks nothing) whether
// p's commands can run as its settings ask, and returns why not, or "".
func checkSandbox(check func(board.Project) error, p board.Project) string {
	if check == nil {
		return ""
	}
	if err := check(p); err != nil {
		return errText(err)
	}
	return ""
}

// sandboxBlocker is the skip reason of a pick whose project's sandbox
// cannot start; problem is checkSandbox's answer.
func sandboxBlocker(p board.Project, problem string) string {
	return fmt.Sprintf("%s; or let its commands run on the host, unsandboxed: bonsai project edit %s --sandbox off", problem, p.Slug)
}

// noteSandbox posts, on the first beat of a streak only, a comment on the
// ticket a project's unusable sandbox kept from running, and ends the
// streaks of projects whose sandbox was found usable. Picks skipped for
// an earlier reason (the repository, the model) leave the streak as it is.
// now is when a streak starts.
func noteSandbox(ctx context.Context, store commenter, plans []Plan, st *State, now time.Time, log *slog.Logger) {
	for _, p := range plans {
		slug := p.Project.Slug
		if p.Sandbox == "" {
			delete(st.Sandbox, slug)
			continue
		}
		if p.Blocker != sandboxBlocker(p.Project, p.Sandbox) {
			continue
		}
		f, ok := st.Sandbox[slug]
		f.Error = p.Sandbox
		if !ok {
			f.Since, f.Ticket = now, p.Ticket.Ref().String()
			_, err := store.AddComment(ctx, p.Ticket.Ref(), board.Comment{
				AuthorType: board.System, AuthorName: runtimeAuthor, Kind: board.KindStatus,
				Content: sandboxFailedText(p.Project, p.Sandbox),
			})
			if err != nil {
				log.Error("post runtime comment", "ticket", f.Ticket, "err", err)
				continue // try again next beat
			}
		}
		st.Sandbox[slug] = f
	}
}

// sandboxFailedText is the comment on the ticket a project's unusable
// sandbox kept from running: what failed, how to fix it, and the way out
// with its risk.
func sandboxFailedText(p board.Project, problem string) string {
	fix := "This system has no sandbox Bonsai can use yet."
	switch runtime.GOOS {
	case "darwin":
		fix = "Seatbelt (`/usr/bin/sandbox-exec`) ships with macOS; it fails when Bonsai itself runs inside another sandbox: run the heartbeat from launchd (`bonsai service install`) or a plain terminal."
	case "linux":
		fix = "Install bubblewrap (Debian and Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install bubblewrap`; " +
			"Arch: `sudo pacman -S bubblewrap`) and check that `bwrap --ro-bind / / true` works as the user the heartbeat runs as: " +
			"some systems restrict unprivileged user namespaces (Ubuntu 24.04: an AppArmor profile for bwrap, or " +
			"`sysctl kernel.apparmor_restrict_unprivileged_userns=0`)."
	}
	return fmt.Sprintf("No agent ran: the commands of %s must run in the sandbox, and the sandbox cannot start on this machine:\n\n%s\n\n"+
		"%s The project's tickets are skipped, at no cost, until it starts; this comment is not repeated.\n\n"+
		"Or let the project's commands run unsandboxed with `bonsai project edit %s --sandbox off`: the agent's commands and the verify command "+
		"then run on the host as the user the heartbeat runs as, able to read and change that user's files, keys and tokens and to reach the network.",
		p.Slug, indented(problem), fix, p.Slug)
}
