package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// DefaultIdleTimeout is how long a stream may go without an event before
// it is given up: OpenAI's reasoning models send nothing at all while
// they reason, for minutes at a high effort, so it is generous.
// Keep-alives (Anthropic's ping events, SSE comments) do not count as
// events: a stream of only keep-alives ends too.
const DefaultIdleTimeout = 5 * time.Minute

// DefaultMaxResponseBytes caps the bytes of one streamed response. The
// adapters ask for at most 32,000 output tokens by default (64,000 with a
// large thinking budget), which cost under 10 MB on the wire of the
// wordiest format (Chat Completions: a chunk of about 250 bytes per
// token); a response four times larger than the text it could carry is
// not an answer but a stream without end, and what it costs in memory
// grows with it (about ten times its size, once decoded, accumulated and
// written to the session).
const DefaultMaxResponseBytes = 16 << 20

// ErrIdleTimeout is in the chain of the error of a stream its guard gave
// up for silence.
var ErrIdleTimeout = errors.New("idle timeout")

// ErrResponseTooLarge is in the chain of the error of a stream its guard
// cut at the size cap.
var ErrResponseTooLarge = errors.New("response too large")

// StreamGuard bounds one streamed response, for the adapters: the time
// between its events, from the request being sent to its end, and its
// size in bytes. A stalled or endless stream becomes an [*Error] naming
// the provider and the limit it broke.
type StreamGuard struct {
	parent   context.Context
	ctx      context.Context
	cancel   context.CancelCauseFunc
	timer    *time.Timer
	idle     time.Duration
	max      int64
	provider string
}

// NewStreamGuard starts guarding a request made with the returned
// context, which is ctx cancelled when idle passes without a call to
// [StreamGuard.Alive]. idle <= 0 means [DefaultIdleTimeout]; maxBytes <= 0
// means [DefaultMaxResponseBytes]. Stop must be called when the stream ends.
func NewStreamGuard(ctx context.Context, provider string, idle time.Duration, maxBytes int64) (*StreamGuard, context.Context) {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxResponseBytes
	}
	g := &StreamGuard{parent: ctx, idle: idle, max: maxBytes, provider: provider}
	g.ctx, g.cancel = context.WithCancelCause(ctx)
	g.timer = time.AfterFunc(idle, func() { g.cancel(ErrIdleTimeout) })
	return g, g.ctx
}

// Hold stops the idle clock while the caller handles an event: the
// consumer's own time is not the provider's silence.
func (g *StreamGuard) Hold() { g.timer.Stop() }

// Alive restarts the idle clock; call it after handling an event.
func (g *StreamGuard) Alive() { g.timer.Reset(g.idle) }

// Stop releases the guard's timer and context.
func (g *StreamGuard) Stop() {
	g.timer.Stop()
	g.cancel(context.Canceled)
}

// Body returns r reading at most the guard's byte cap; past it, reads
// fail and [StreamGuard.Err] reports a response too large.
func (g *StreamGuard) Body(r io.Reader) io.Reader {
	return &capReader{r: r, left: g.max}
}

// Err turns the error that ended a stream into the guard's own when the
// guard caused it: the idle timeout or the size cap. The parent context's
// error wins; other errors are returned as they are.
func (g *StreamGuard) Err(err error) error {
	if err == nil {
		return nil
	}
	if perr := g.parent.Err(); perr != nil {
		return perr
	}
	if errors.Is(context.Cause(g.ctx), ErrIdleTimeout) {
		return &Error{Kind: KindTransport, Provider: g.provider, Err: ErrIdleTimeout,
			Message: fmt.Sprintf("no response for %s (idle timeout): the provider stalled", g.idle)}
	}
	if errors.Is(err, ErrResponseTooLarge) {
		return &Error{Kind: KindTransport, Provider: g.provider, Err: ErrResponseTooLarge,
			Message: fmt.Sprintf("response larger than %s: the stream was cut off", byteSize(g.max))}
	}
	return err
}

// capReader reads until left bytes are used, then fails with ErrResponseTooLarge.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One more byte tells a body of exactly the cap from a longer one.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, ErrResponseTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// byteSize formats n as MiB when it is a whole number of them, else bytes.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
