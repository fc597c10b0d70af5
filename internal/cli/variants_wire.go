package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
)

// runVariants creates the variants of ticket ref on s, within config.json's
// heartbeat.maxConcurrentAgents and budgets (heartbeat.CreateVariants), and
// starts a beat for the ticket, which runs them; it waits for their first
// run as Run now does.
func runVariants(ctx context.Context, a *app, d config.Dir, s store.Store, ref board.Ref, specs []board.VariantSpec) (string, error) {
	cfg, err := a.config()
	if err != nil {
		return "", err
	}
	vs, err := heartbeat.CreateVariants(ctx, s, heartbeat.VariantRequest{Ref: ref, Specs: specs,
		MaxConcurrent: heartbeat.ConcurrencyLimit(int(cfg.Heartbeat.MaxConcurrentAgents)),
		Limits:        limitsOf(cfg.Budget), Now: a.now(), Actor: board.Human, Author: a.author()})
	if err != nil {
		return "", err
	}
	lines := make([]string, len(vs))
	refs := make([]board.Ref, len(vs))
	for i, v := range vs {
		lines[i] = fmt.Sprintf("  %d. %s: %s", v.Number, v.Ref, v.Spec())
		refs[i] = v.Ref
	}
	msg, err := startRunNow(ctx, a, d, heartbeat.VariantRuns(s, refs), ref)
	head := fmt.Sprintf("%s runs %d ways, each a ticket of its own:\n%s\n", ref, len(vs), strings.Join(lines, "\n"))
	if err != nil {
		return "", fmt.Errorf("%s%w (the variants wait for the next beat)", head, err)
	}
	return head + msg, nil
}

// returnVariant returns variant n of ticket ref with feedback, as the
// person running this process.
func (a *app) returnVariant(ctx context.Context, ref board.Ref, n int, feedback string) (board.Ticket, error) {
	st, err := a.openStore(ctx)
	if err != nil {
		return board.Ticket{}, err
	}
	return webVariants{a: a, s: st}.Return(ctx, ref, n, a.author(), feedback)
}

// webVariants is the web UI's best of N (web.VariantActions): variants
// created and run as `ticket run --variants` does, returned through the
// Lander as the person running the server.
type webVariants struct {
	a *app
	d config.Dir
	s store.Store
}

// Run implements web.VariantActions.
func (w webVariants) Run(ctx context.Context, ref board.Ref, specs []board.VariantSpec) (string, error) {
	return runVariants(ctx, w.a, w.d, w.s, ref, specs)
}

// Return implements web.VariantActions.
func (w webVariants) Return(ctx context.Context, ref board.Ref, n int, author, feedback string) (board.Ticket, error) {
	l, err := newLander(w.a, w.s)
	if err != nil {
		return board.Ticket{}, err
	}
	return l.Return(ctx, ref, n, author, feedback)
}
