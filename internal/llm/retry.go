package llm

import (
	"context"
	"errors"
	"iter"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how often and how long to retry a failed request.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// BaseDelay is the delay before the first retry; each retry doubles it.
	BaseDelay time.Duration
	// MaxDelay caps one delay, including a provider's retry-after: a longer
	// retry-after ends the retries instead of stalling the run.
	MaxDelay time.Duration
	// Sleep waits for d or until ctx is done; nil means a real timer. Tests
	// inject a fake to record delays without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a random float in [0, 1); nil means math/rand/v2.
	Jitter func() float64
}

// DefaultRetryPolicy is used by [WithRetry] for zero fields: 4 retries
// from 1 s doubling, each delay at most 60 s.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 4, BaseDelay: time.Second, MaxDelay: 60 * time.Second}

// WithRetry returns a Model that retries m's retryable failures ([*Error]
// with Retryable true) that happen before the first content event. The
// delay is exponential with full jitter on its upper half, or the
// provider's retry-after when longer. Each retry is announced with an
// [EventRetry]. Context errors are never retried.
func WithRetry(m Model, p RetryPolicy) Model {
	if p.MaxRetries == 0 && p.BaseDelay == 0 && p.MaxDelay == 0 {
		p.MaxRetries = DefaultRetryPolicy.MaxRetries
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultRetryPolicy.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRetryPolicy.MaxDelay
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	if p.Jitter == nil {
		p.Jitter = rand.Float64
	}
	return &retryModel{m: m, p: p}
}

type retryModel struct {
	m Model
	p RetryPolicy
}

// Stream plays attempts until one streams content, succeeds, or fails for
// good; see [WithRetry].
func (r *retryModel) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for attempt := 0; ; attempt++ {
			started := false
			var failed Event
			var failure error
			for ev, err := range r.m.Stream(ctx, req) {
				if err != nil && !started {
					failed, failure = ev, err
					break
				}
				if ev.Type != EventRetry {
					started = true
				}
				if !yield(ev, err) {
					return
				}
			}
			if failure == nil {
				return
			}
			delay, ok := r.delay(ctx, attempt, failure)
			if !ok {
				yield(failed, failure)
				return
			}
			info := &RetryInfo{Attempt: attempt + 1, Delay: delay, Err: failure.Error()}
			if !yield(Event{Type: EventRetry, Retry: info}, nil) {
				return
			}
			if err := r.p.Sleep(ctx, delay); err != nil {
				yield(abortedEvent(failed), err)
				return
			}
		}
	}
}

// delay returns how long to wait before retry number attempt+1, and false
// when the failure must not be retried.
func (r *retryModel) delay(ctx context.Context, attempt int, err error) (time.Duration, bool) {
	if ctx.Err() != nil || attempt >= r.p.MaxRetries {
		return 0, false
	}
	e, ok := errors.AsType[*Error](err)
	if !ok || !e.Retryable() {
		return 0, false
	}
	if e.RetryAfter > r.p.MaxDelay {
		return 0, false
	}
	d := r.p.BaseDelay << attempt
	if d > r.p.MaxDelay || d <= 0 {
		d = r.p.MaxDelay
	}
	d = d/2 + time.Duration(r.p.Jitter()*float64(d/2))
	if e.RetryAfter > d {
		d = e.RetryAfter
	}
	return d, true
}

func abortedEvent(ev Event) Event {
	if ev.Message != nil {
		m := *ev.Message
		m.StopReason = StopAborted
		m.ErrorMessage = "aborted"
		ev.Message = &m
	}
	return ev
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
