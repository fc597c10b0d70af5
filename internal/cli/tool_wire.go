package cli

import (
	"github.com/bonsai-run/bonsai/internal/cmd/toolcmd"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// openToolWorkspace is `bonsai tool`'s executor: the local one, on the
// workspace root the person named.
func openToolWorkspace(root string) (toolcmd.Workspace, error) {
	return local.New(root, local.Options{})
}
