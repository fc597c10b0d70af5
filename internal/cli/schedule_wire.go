package cli

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// fireSchedule fires schedule project/name now, as a beat would when it
// is due (the web's Fire now too): refused when it is paused or will not
// fire again.
func fireSchedule(ctx context.Context, a *app, project, name string) (heartbeat.FireReport, error) {
	st, err := a.openStore(ctx)
	if err != nil {
		return heartbeat.FireReport{}, err
	}
	s, err := st.Schedule(ctx, project, name)
	if err != nil {
		return heartbeat.FireReport{}, err
	}
	if err := schedule.CheckFirable(s); err != nil {
		return heartbeat.FireReport{}, err
	}
	w, err := wireHeartbeat(ctx, a, project, board.Ref{}, nil, nil)
	if err != nil {
		return heartbeat.FireReport{}, err
	}
	defer w.close()
	return w.hb.Fire(ctx, s), nil
}

// fireNow is fireSchedule for `bonsai schedule fire`.
func (a *app) fireNow(ctx context.Context, project, name string) (heartbeat.FireReport, error) {
	return fireSchedule(ctx, a, project, name)
}

// writeDueSchedules lists, for heartbeat --dry-run, the schedules a beat
// would fire now (of project only, when given).
func writeDueSchedules(ctx context.Context, a *app, project string) error {
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	due, err := st.DueSchedules(ctx, a.now())
	if err != nil {
		return err
	}
	text.WriteDue(a.stdout, due, project)
	return nil
}
