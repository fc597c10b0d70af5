package land

import (
	"github.com/bonsai-run/bonsai/internal/board"
)

// Resolve returns how project p's approved work lands: its landing mode,
// or for auto, merge when its repository is a local path, pr when
// prs (which may be nil) has the forge and a token for it, else none.
// It makes no network request.
func Resolve(p board.Project, prs PullRequests) board.LandMode {
	if p.Agent.Land != board.LandAuto {
		return p.Agent.Land
	}
	switch {
	case board.IsLocalRepo(p.Repo):
		return board.LandMerge
	case prs != nil && prs.Available(p):
		return board.LandPR
	}
	return board.LandNone
}
