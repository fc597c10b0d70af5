package llm

import (
	"context"
	"errors"
	"iter"
	"testing"
	"time"
)

// funcModel is a Model whose Stream is a function field.
type funcModel func(ctx context.Context, req Request) iter.Seq2[Event, error]

func (f funcModel) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return f(ctx, req)
}

// attempts returns a model that plays one script per call: each script is
// the events before a terminal error (nil err means success).
func attempts(calls *int, scripts ...func(yield func(Event, error) bool)) Model {
	return funcModel(func(context.Context, Request) iter.Seq2[Event, error] {
		i := *calls
		*calls++
		return scripts[i]
	})
}

func failWith(err error, before ...Event) func(yield func(Event, error) bool) {
	return func(yield func(Event, error) bool) {
		for _, ev := range before {
			if !yield(ev, nil) {
				return
			}
		}
		yield(Event{Type: EventError, Message: &Message{Role: RoleAssistant, StopReason: StopError}}, err)
	}
}

func succeed(text string) func(yield func(Event, error) bool) {
	return func(yield func(Event, error) bool) {
		msg := Message{Role: RoleAssistant, Content: []Part{Text(text)}, StopReason: StopEnd}
		_ = yield(Event{Type: EventTextStart, Part: &Part{Type: PartText}}, nil) &&
			yield(Event{Type: EventTextDelta, Delta: text}, nil) &&
			yield(Event{Type: EventDone, Message: &msg}, nil)
	}
}

type recorder struct{ delays []time.Duration }

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.delays = append(r.delays, d)
	return ctx.Err()
}

func TestWithRetry(t *testing.T) {
	rate := &Error{Kind: KindRateLimit, Status: 429}
	tests := []struct {
		name    string
		scripts []func(yield func(Event, error) bool)
		calls   int
		delays  []time.Duration
		kind    ErrorKind
	}{
		{"success needs no retry", []func(func(Event, error) bool){succeed("a")}, 1, nil, ""},
		{"backoff doubles", []func(func(Event, error) bool){failWith(rate), failWith(rate), failWith(rate), succeed("a")},
			4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, ""},
		{"retry-after wins when longer", []func(func(Event, error) bool){failWith(&Error{Kind: KindOverloaded, RetryAfter: 4 * time.Second}), succeed("a")},
			2, []time.Duration{4 * time.Second}, ""},
		{"delay is capped", []func(func(Event, error) bool){failWith(rate), failWith(rate), failWith(rate), failWith(rate), failWith(rate), succeed("a")},
			5, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second}, KindRateLimit},
		{"auth is not retried", []func(func(Event, error) bool){failWith(&Error{Kind: KindAuth, Status: 401})}, 1, nil, KindAuth},
		{"overflow is not retried", []func(func(Event, error) bool){failWith(&Error{Kind: KindContextOverflow})}, 1, nil, KindContextOverflow},
		{"plain errors are not retried", []func(func(Event, error) bool){failWith(errors.New("boom"))}, 1, nil, ""},
		{"failure after content is not retried", []func(func(Event, error) bool){
			failWith(&Error{Kind: KindTransport}, Event{Type: EventTextDelta, Delta: "x"})}, 1, nil, KindTransport},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			var rec recorder
			m := WithRetry(attempts(&calls, tt.scripts...), RetryPolicy{MaxRetries: 4, BaseDelay: time.Second, MaxDelay: 5 * time.Second,
				Sleep: rec.sleep, Jitter: func() float64 { return 0.999999999 }})
			var retries []time.Duration
			var err error
			for ev, e := range m.Stream(context.Background(), Request{}) {
				if ev.Type == EventRetry {
					retries = append(retries, ev.Retry.Delay)
				}
				err = e
			}
			if calls != tt.calls {
				t.Errorf("calls = %d, want %d", calls, tt.calls)
			}
			if len(rec.delays) != len(tt.delays) {
				t.Fatalf("delays = %v, want %v", rec.delays, tt.delays)
			}
			for i := range tt.delays {
				// Jitter near 1 gives the full delay, less a rounding nanosecond.
				if d := tt.delays[i] - rec.delays[i]; d < 0 || d > time.Microsecond || retries[i] != rec.delays[i] {
					t.Errorf("delay %d = %v (event %v), want %v", i, rec.delays[i], retries[i], tt.delays[i])
				}
			}
			if tt.kind != "" && KindOf(err) != tt.kind {
				t.Errorf("err = %v, want kind %s", err, tt.kind)
			}
			if tt.kind == "" && tt.name != "plain errors are not retried" && err != nil {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestWithRetry_CancelDuringSleep(t *testing.T) {
	calls := 0
	ctx, cancel := context.WithCancel(context.Background())
	m := WithRetry(attempts(&calls, failWith(&Error{Kind: KindOverloaded}), succeed("a")), RetryPolicy{
		MaxRetries: 3, Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }})
	var last Event
	var err error
	for ev, e := range m.Stream(ctx, Request{}) {
		last, err = ev, e
	}
	if !errors.Is(err, context.Canceled) || last.Type != EventError || last.Message.StopReason != StopAborted || calls != 1 {
		t.Errorf("err %v, last %+v, calls %d", err, last, calls)
	}
}

func TestWithRetry_RealSleepHonoursContext(t *testing.T) {
	calls := 0
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	m := WithRetry(attempts(&calls, failWith(&Error{Kind: KindOverloaded}), succeed("a")), RetryPolicy{MaxRetries: 1, BaseDelay: time.Hour, MaxDelay: time.Hour})
	_, err := Collect(m.Stream(ctx, Request{}))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

func TestWithRetry_BreakStopsInner(t *testing.T) {
	calls := 0
	m := WithRetry(attempts(&calls, succeed("abc")), RetryPolicy{})
	for range m.Stream(context.Background(), Request{}) {
		break
	}
	if calls != 1 {
		t.Errorf("calls = %d", calls)
	}
}
