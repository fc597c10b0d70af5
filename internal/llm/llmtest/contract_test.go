package llmtest

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// TestModel_Contract runs the Model contract on the scripted model, with
// server turns translated to what the scripted model can express.
func TestModel_Contract(t *testing.T) {
	RunModelContract(t, func(t *testing.T, turns ...ServerTurn) llm.Model {
		m := NewModel()
		for _, st := range turns {
			m.Push(scriptTurn(st))
		}
		return m
	})
}

func scriptTurn(st ServerTurn) Turn {
	turn := Turn{Message: st.Message}
	if st.Chunk > 0 {
		turn.Events = Events(st.Message, st.Chunk)
	}
	switch {
	case st.Status != 0:
		turn = Turn{Err: &llm.Error{Kind: llm.KindForStatus(st.Status, st.ErrorMessage), Status: st.Status,
			Message: st.ErrorMessage, RetryAfter: llm.ParseRetryAfter(st.RetryAfter, time.Now())}}
	case st.Cut == CutReset && st.CutAfter == 0:
		turn = Turn{Err: &llm.Error{Kind: llm.KindTransport, Message: "connection reset"}}
	}
	return turn
}
