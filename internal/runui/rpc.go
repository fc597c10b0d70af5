package runui

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// rpcCommand is one JSON line of `bonsai run --mode rpc` (docs/rpc.md).
type rpcCommand struct {
	// ID is echoed in the response as given (string or number).
	ID       json.RawMessage `json:"id,omitempty"`
	Type     string          `json:"type"`
	Message  string          `json:"message,omitempty"`  // prompt, steer, follow_up
	Model    string          `json:"model,omitempty"`    // set_model
	Thinking string          `json:"thinking,omitempty"` // set_model
	EntryID  string          `json:"entryId,omitempty"`  // fork
}

// rpcResponse answers one command.
type rpcResponse struct {
	Type    string          `json:"type"` // always "response"
	ID      json.RawMessage `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error,omitempty"`
	Data    any             `json:"data,omitempty"`
}

// rpcState is the data of get_state.
type rpcState struct {
	Model        string    `json:"model"`
	Thinking     string    `json:"thinking"`
	Running      bool      `json:"running"`
	SessionID    string    `json:"sessionId"`
	SessionFile  string    `json:"sessionFile,omitempty"`
	MessageCount int       `json:"messageCount"`
	Usage        llm.Usage `json:"usage"`
}

// rpcServer serves commands from stdin while runs go on in the background.
type rpcServer struct {
	rt  *Run
	out *jsonLines

	// runs owns the goroutines commands start (a run, an abort, a
	// compaction); RPC waits for them before it returns.
	runs group

	mu      sync.Mutex
	running bool               // a prompt was accepted and its agent_end not yet seen
	cancel  context.CancelFunc // of the current run
	done    chan struct{}      // closed when the current run's goroutine ends
}

// RPC reads commands until stdin ends, then waits for the current run.
func (rt *Run) RPC(ctx context.Context) error {
	s := &rpcServer{rt: rt, out: newJSONLines(rt.Stdout)}
	rt.Events.Set(func(e agent.Event) {
		if e.Type == agent.EventAgentEnd {
			// A client may send the next prompt as soon as it reads this.
			s.mu.Lock()
			s.running = false
			s.mu.Unlock()
		}
		_ = s.out.write(e)
	})
	defer s.runs.Wait()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	// The reader ends when stdin does, or at the first line after ctx is
	// done. On the normal path (stdin ended) RPC waits for it; once ctx is
	// done it may be blocked in a read of stdin that nothing can interrupt,
	// and the process ends without it.
	var reader group
	reader.Go(func() {
		defer close(lines)
		br := bufio.NewReaderSize(rt.Stdin, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr <- err
				}
				return
			}
		}
	})
	for {
		select {
		case <-ctx.Done():
			s.abort()
			return ctx.Err()
		case line, ok := <-lines:
			if !ok {
				reader.Wait()
				s.wait()
				select {
				case err := <-readErr:
					return fmt.Errorf("read commands: %w", err)
				default:
				}
				return s.out.err
			}
			s.handle(ctx, line)
		}
	}
}

func (s *rpcServer) handle(ctx context.Context, line []byte) {
	var c rpcCommand
	if err := json.Unmarshal(line, &c); err != nil {
		if len(trimSpace(line)) == 0 {
			return
		}
		s.reply(c, nil, fmt.Errorf("malformed command: %v", err))
		return
	}
	a := s.rt.Agent
	switch c.Type {
	case "prompt":
		s.reply(c, nil, s.start(ctx, c.Message))
	case "steer", "follow_up":
		if c.Message == "" {
			s.reply(c, nil, errors.New("message is empty"))
			return
		}
		if c.Type == "steer" {
			a.Steer(llm.UserText(c.Message))
		} else {
			a.FollowUp(llm.UserText(c.Message))
		}
		s.reply(c, nil, nil)
	case "abort":
		// Answer once the run has ended, so a prompt sent next is accepted.
		s.runs.Go(func() { s.abort(); s.reply(c, nil, nil) })
	case "get_state":
		s.reply(c, s.state(), nil)
	case "get_messages":
		s.reply(c, map[string]any{"messages": a.Messages()}, nil)
	case "set_model":
		s.reply(c, nil, s.setModel(c))
	case "compact":
		if a.Running() {
			s.reply(c, nil, agent.ErrBusy)
			return
		}
		s.runs.Go(func() {
			err := a.Compact(ctx)
			var data any
			if err == nil {
				data = map[string]any{"compaction": a.Session().Context().Compaction}
			}
			s.reply(c, data, err)
		})
	case "new_session":
		data, err := s.switchSession(func() error {
			sess, err := s.rt.Sessions.New()
			if err != nil {
				return err
			}
			return s.swap(sess)
		})
		s.reply(c, data, err)
	case "fork":
		data, err := s.switchSession(func() error {
			old := a.Session()
			at := c.EntryID
			if at == "" {
				at = old.Leaf()
			}
			sess, err := old.Fork(at, s.rt.Sessions.ForkPath())
			if err != nil {
				return err
			}
			return s.swap(sess)
		})
		s.reply(c, data, err)
	default:
		s.reply(c, nil, fmt.Errorf("unknown command %q", c.Type))
	}
}

// start begins a run in the background.
func (s *rpcServer) start(ctx context.Context, msg string) error {
	if msg == "" {
		return errors.New("message is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.rt.Agent.Running() { // a run, or a compaction
		return fmt.Errorf("%w: send steer or follow_up instead", agent.ErrBusy)
	}
	s.running = true
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.cancel, s.done = cancel, done
	s.runs.Go(func() {
		defer close(done)
		defer cancel()
		if res := s.rt.Agent.Prompt(runCtx, llm.UserText(msg)); errors.Is(res.Err, agent.ErrBusy) {
			// The previous run had not quite returned; it has now ended its events.
			s.mu.Lock()
			s.running = false
			s.mu.Unlock()
		}
	})
	return nil
}

// abort cancels the current run, if any, and waits for it to end.
func (s *rpcServer) abort() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wait()
}

func (s *rpcServer) wait() {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (s *rpcServer) state() rpcState {
	a := s.rt.Agent
	sess := a.Session()
	return rpcState{Model: a.Model().ID, Thinking: string(a.Thinking()), Running: a.Running(),
		SessionID: sess.Header().ID, SessionFile: sess.Path(), MessageCount: len(a.Messages()), Usage: a.Usage()}
}

func (s *rpcServer) setModel(c rpcCommand) error {
	if c.Model == "" {
		return errors.New("model is empty")
	}
	thinking := s.rt.Agent.Thinking()
	if c.Thinking != "" {
		t, err := llm.ParseThinkingLevel(c.Thinking)
		if err != nil {
			return err
		}
		thinking = t
	}
	m, info, warning, err := s.rt.Models(c.Model)
	if err != nil {
		return err
	}
	if warning != "" {
		s.rt.warn(warning)
	}
	return s.rt.Agent.SetModel(m, info, thinking)
}

// switchSession runs fn when idle and returns the new session's identity.
func (s *rpcServer) switchSession(fn func() error) (any, error) {
	if s.rt.Agent.Running() {
		return nil, agent.ErrBusy
	}
	if err := fn(); err != nil {
		return nil, err
	}
	sess := s.rt.Agent.Session()
	return map[string]any{"sessionId": sess.Header().ID, "sessionFile": sess.Path()}, nil
}

// swap makes sess the agent's session, recording the model in it, and
// closes the old one.
func (s *rpcServer) swap(sess *session.File) error {
	a := s.rt.Agent
	old := a.Session()
	if err := a.SetSession(sess); err != nil {
		sess.Close()
		return err
	}
	old.Close()
	c := sess.Context()
	if c.Model != a.Model().ID || c.Thinking != a.Thinking() {
		if _, err := sess.AppendModelChange(a.Model().ID, a.Thinking()); err != nil {
			return err
		}
	}
	return nil
}

func (s *rpcServer) reply(c rpcCommand, data any, err error) {
	r := rpcResponse{Type: "response", ID: c.ID, Command: c.Type, Success: err == nil, Data: data}
	if err != nil {
		r.Error = err.Error()
	}
	_ = s.out.write(r)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
