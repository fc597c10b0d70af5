package agentrunner

import (
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// Live feeds a run's agent events to the live file beside the ticket's
// transcript (session.LiveWriter), so that `bonsai serve` can show the
// assistant message being streamed before it is complete. Live is safe
// for concurrent use.
type Live struct {
	w *session.LiveWriter
}

// NewLive returns a Live writing the live file of the transcript at
// transcript; logger (nil: none) receives the first failure. Without a
// transcript it writes nothing.
func NewLive(transcript string, logger *slog.Logger) *Live {
	return &Live{w: session.NewLiveWriter(transcript, logger)}
}

// SetStore sends the live file to st as well (nil: the file alone), for
// a board several machines share; see session.LiveWriter.SetStore.
func (l *Live) SetStore(st session.LiveStore) { l.w.SetStore(st) }

// Path returns the live file's path.
func (l *Live) Path() string { return l.w.Path() }

// Event folds one agent event into the live file: an assistant
// message_start starts a message, message_update deltas are batched and
// message_end ends it (the complete message is then in the transcript).
func (l *Live) Event(e agent.Event) {
	switch e.Type {
	case agent.EventMessageStart:
		// The loop has fsynced every earlier entry before it starts a
		// message.
		if e.Message != nil && e.Message.Role == llm.RoleAssistant {
			l.w.Start()
		}
	case agent.EventMessageUpdate:
		if e.Delta != nil {
			l.w.Delta(*e.Delta)
		}
	case agent.EventMessageEnd:
		if e.Message != nil && e.Message.Role == llm.RoleAssistant {
			l.w.End()
		}
	}
}

// Close stops writing and removes the live file: the run is over, and
// everything the file held is in the transcript.
func (l *Live) Close() { l.w.Close() }
