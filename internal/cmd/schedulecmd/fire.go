package schedulecmd

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// Firer fires schedule project/name now, as a beat would when it is due
// (internal/cli wires it to a heartbeat).
type Firer func(ctx context.Context, project, name string) (heartbeat.FireReport, error)
