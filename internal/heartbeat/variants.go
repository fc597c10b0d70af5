package heartbeat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Best of N (docs/heartbeat.md, "Variants"): a ticket run N ways at once.
// Each variant is a ticket of its own (store.Variants), so it has its own
// worktree, branch, lease, runs, transcript, evidence and review record;
// the beat runs it with its own engine and model and its share of the
// ticket's budget, and the ticket waits for its variants. A beat told the
// ticket (Run now) runs its variants instead.

// variantStore is what best of N reads and writes beyond Store; the
// stores implement it (a test double without it has no variants).
type variantStore interface {
	Variants(ctx context.Context, ref board.Ref) ([]board.Variant, error)
	FailVariant(ctx context.Context, ref board.Ref, reason string) (board.Variant, error)
}

// Shares below these are too small for a variant to do anything.
const (
	minVariantUSD    = 0.01
	minVariantTokens = 1000
)

// VariantRequest asks for a ticket to be run N ways (`bonsai ticket run
// --variants`, the ticket page, the API).
type VariantRequest struct {
	Ref   board.Ref
	Specs []board.VariantSpec
	// MaxConcurrent is heartbeat.maxConcurrentAgents: N variants run at
	// once, so N may not exceed it.
	MaxConcurrent int
	// Limits are config.json's caps; the project's own settings override
	// them.
	Limits Limits
	Now    time.Time
	Actor  board.Actor
	Author string
}

// VariantCreator is the store CreateVariants needs.
type VariantCreator interface {
	Project(ctx context.Context, slug string) (board.Project, error)
	spendStore
	CreateVariants(ctx context.Context, v store.NewVariants) ([]board.Variant, error)
}

// CreateVariants checks req against the limits and creates the variants:
// N within heartbeat.maxConcurrentAgents, the project active, and each
// variant's share of the ticket's remaining budget and of the project's
// day worth a run. The store refuses a ticket already running or with
// variants in flight. A refusal is EREFUSED and says why.
func CreateVariants(ctx context.Context, st VariantCreator, req VariantRequest) ([]board.Variant, error) {
	n := len(req.Specs)
	if req.MaxConcurrent > 0 && n > req.MaxConcurrent {
		return nil, board.Errorf(board.EREFUSED, "%s: %d variants run at once, but heartbeat.maxConcurrentAgents is %d; ask for fewer, or raise it (bonsai config set heartbeat.maxConcurrentAgents %d)",
			req.Ref, n, req.MaxConcurrent, n)
	}
	proj, err := st.Project(ctx, req.Ref.Project)
	if err != nil {
		return nil, err
	}
	if !proj.Active {
		return nil, board.Errorf(board.EREFUSED, "%s: project %s is archived (bonsai project restore %s)", req.Ref, proj.Slug, proj.Slug)
	}
	nv := store.NewVariants{Ticket: req.Ref, Specs: req.Specs, Actor: req.Actor}
	if nv.BudgetUSD, nv.BudgetTokens, err = variantShares(ctx, st, req, proj); err != nil {
		return nil, err
	}
	specs := make([]string, n)
	for i, s := range req.Specs {
		specs[i] = fmt.Sprintf("%d. `%s`", i+1, s)
	}
	text := fmt.Sprintf("%s asked for this ticket to run %d ways at once, each in its own worktree and branch:\n\n%s\n\nThe ticket waits for them; compare them once they reach VERIFICATION, and approve one (it lands, the others are closed) or return one with feedback (its branch becomes this ticket's).",
		req.Author, n, strings.Join(specs, "\n"))
	if nv.BudgetUSD > 0 || nv.BudgetTokens > 0 {
		text += fmt.Sprintf(" Each has %s of the ticket's budget.", shareText(nv.BudgetUSD, nv.BudgetTokens))
	}
	nv.Comment = board.Comment{AuthorType: board.System, AuthorName: runtimeAuthor, Kind: board.KindStatus, Content: text}
	return st.CreateVariants(ctx, nv)
}

// variantShares splits what is left of the ticket's caps between the
// variants, and refuses N variants when a share, or each variant's part
// of what is left of the project's day, is too small to run.
func variantShares(ctx context.Context, st spendStore, req VariantRequest, proj board.Project) (float64, int64, error) {
	n := len(req.Specs)
	l := req.Limits.Of(proj.Agent)
	sp, err := spending(ctx, st, req.Now, l, proj, req.Ref)
	if err != nil {
		return 0, 0, err
	}
	refuse := func(what string, left float64, unit string) error {
		return board.Errorf(board.EREFUSED, "%s: %d variants are more than the budget allows: %s has %s left, %s each (a variant needs at least %s); ask for fewer, or raise the cap (bonsai project edit %s)",
			req.Ref, n, what, fmtAmount(left, unit), fmtAmount(left/float64(n), unit), fmtAmount(minOf(unit), unit), proj.Slug)
	}
	var usd float64
	var tokens int64
	if l.TicketUSD > 0 {
		left := l.TicketUSD - sp.ticket.CostUSD
		if usd = left / float64(n); usd < minVariantUSD {
			return 0, 0, refuse("the ticket's budget", left, "$")
		}
	}
	if l.TicketTokens > 0 {
		left := l.TicketTokens - sp.ticket.Tokens()
		if tokens = left / int64(n); tokens < minVariantTokens {
			return 0, 0, refuse("the ticket's token budget", float64(left), "tokens")
		}
	}
	if l.DailyUSD > 0 {
		if left := l.DailyUSD - sp.day.CostUSD; left/float64(n) < minVariantUSD {
			return 0, 0, refuse("the project's day", left, "$")
		}
	}
	if l.DailyTokens > 0 {
		if left := l.DailyTokens - sp.day.Tokens(); left/int64(n) < minVariantTokens {
			return 0, 0, refuse("the project's day", float64(left), "tokens")
		}
	}
	return usd, tokens, nil
}

func minOf(unit string) float64 {
	if unit == "$" {
		return minVariantUSD
	}
	return minVariantTokens
}

func fmtAmount(v float64, unit string) string {
	if unit == "$" {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("%d tokens", int64(v))
}

func shareText(usd float64, tokens int64) string {
	var parts []string
	if usd > 0 {
		parts = append(parts, fmtAmount(usd, "$"))
	}
	if tokens > 0 {
		parts = append(parts, fmtAmount(float64(tokens), "tokens"))
	}
	return strings.Join(parts, " and ")
}

// bestOfN is the beat's part in best of N: the picks of a beat told a
// ticket run N ways, its variants' plans, their failures and the ticket
// reaching VERIFICATION with them.
type bestOfN struct{ h *Heartbeat }

// pickTold returns the picks of the beat told its ticket: the ticket's
// running variants that an agent may work, when it has variants in
// flight, else the ticket itself (pickOne).
func (b bestOfN) pickTold(ctx context.Context) ([]board.Pick, error) {
	vs := b.variants(ctx, b.h.opts.Ticket)
	if len(vs) == 0 || vs[0].Ticket != b.h.opts.Ticket || !inFlight(vs) {
		return pickOne(ctx, b.h.opts.Store, b.h.opts.Ticket)
	}
	var picks []board.Pick
	var why []string
	for _, v := range vs {
		if v.State != board.VariantRunning {
			continue
		}
		pk, err := pickOne(ctx, b.h.opts.Store, v.Ref)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		picks = append(picks, pk...)
	}
	if len(picks) == 0 {
		return nil, &NotRunnableError{b.h.opts.Ticket, "none of its variants can run now: " + strings.Join(why, "; ")}
	}
	return picks, nil
}

// variants returns the variants of ref's round (none when the store has
// none, or cannot say: the ticket then runs as any other).
func (b bestOfN) variants(ctx context.Context, ref board.Ref) []board.Variant {
	vs, ok := b.h.opts.Store.(variantStore)
	if !ok {
		return nil
	}
	out, err := vs.Variants(ctx, ref)
	if err != nil {
		b.h.log.Warn("read the ticket's variants", "ticket", ref.String(), "err", err)
		return nil
	}
	return out
}

func inFlight(vs []board.Variant) bool {
	for _, v := range vs {
		if v.State.InFlight() {
			return true
		}
	}
	return false
}

// variantPlans gives each plan of a running variant its variant's engine,
// model, share of the budget and place among its round (so that the
// project's day is split between them, dayshare.go), and a plan of a
// ticket whose variant was chosen to go on the chosen engine and model.
// A variant whose engine cannot run fails for good, with the reason on
// its ticket and its variants' ticket.
func (b bestOfN) variantPlans(ctx context.Context, st *State, plans []Plan) ([]Plan, error) {
	for i := range plans {
		p := &plans[i]
		vs := b.variants(ctx, p.Ticket.Ref())
		if len(vs) == 0 {
			continue
		}
		if vs[0].Ticket == p.Ticket.Ref() {
			for _, v := range vs {
				if v.State == board.VariantChosen {
					p.Project.Agent.Engine, p.Model = v.Engine, v.Model
				}
			}
			continue
		}
		for _, v := range vs {
			if v.Ref == p.Ticket.Ref() && v.State == board.VariantRunning {
				if err := b.variantPlan(ctx, st, p, v, len(vs)); err != nil {
					return nil, err
				}
			}
		}
	}
	return plans, nil
}

// variantPlan makes p, the plan of running variant v of a round of n, run
// as v says.
func (b bestOfN) variantPlan(ctx context.Context, st *State, p *Plan, v board.Variant, n int) error {
	a := &p.Project.Agent
	a.Engine, p.Model, p.Rank = v.Engine, v.Model, v.Number-1
	if v.BudgetUSD > 0 {
		a.BudgetUSD = v.BudgetUSD
	}
	if v.BudgetTokens > 0 {
		a.TicketTokens = v.BudgetTokens
	}
	a.MaxAgents = max(a.MaxAgents, int64(n))
	if why := b.h.blocker(p.Project, p.Model, &State{}); why != "" {
		p.Blocker = "variant " + v.Spec().String() + " cannot run: " + why
		p.failed = &variantFailure{v, why}
		return nil
	}
	var err error
	p.Blocker, p.Sandbox, err = b.h.projectBlocker(ctx, st, p.Project, p.Model)
	return err
}

// variantFailure is a variant that cannot run, and why: its engine is
// not installed, or cannot run its model (Plan.failed).
type variantFailure struct {
	v   board.Variant
	why string
}

// failVariants fails for good the variants of plans that cannot run (a
// beat's plans; a dry run changes nothing).
func (b bestOfN) failVariants(ctx context.Context, plans []Plan) {
	for _, p := range plans {
		if p.failed != nil {
			b.failVariant(ctx, p.failed.v, p.failed.why)
		}
	}
}

// failVariant records that variant v cannot run, on the variant and on
// its ticket.
func (b bestOfN) failVariant(ctx context.Context, v board.Variant, why string) {
	vs, ok := b.h.opts.Store.(variantStore)
	if !ok {
		return
	}
	if _, err := vs.FailVariant(ctx, v.Ref, why); err != nil {
		b.h.log.Warn("fail the variant", "variant", v.Ref.String(), "err", err)
		return
	}
	text := fmt.Sprintf("Variant %d (`%s`, %s) was skipped and will not run: %s", v.Number, v.Spec(), v.Ref, why)
	for _, ref := range []board.Ref{v.Ticket, v.Ref} {
		if _, err := b.h.opts.Store.AddComment(ctx, ref, board.Comment{AuthorType: board.System, AuthorName: runtimeAuthor,
			Kind: board.KindStatus, Content: text}); err != nil {
			b.h.log.Warn("comment on the failed variant", "ticket", ref.String(), "err", err)
		}
	}
}

// settleVariants moves each ticket whose variants all ended their work
// (in VERIFICATION, or failed) to VERIFICATION, as the runtime, with a
// comment that points at the comparison: its runs being reps. A ticket
// none of whose variants reached VERIFICATION stays, and says so once.
func (b bestOfN) settleVariants(ctx context.Context, reps []RunReport) {
	seen := map[board.Ref]bool{}
	for _, rep := range reps {
		ref, err := board.ParseRef(rep.Ticket)
		if err != nil {
			continue
		}
		vs := b.variants(ctx, ref)
		if len(vs) == 0 || vs[0].Ticket == ref || seen[vs[0].Ticket] || !inFlight(vs) {
			continue
		}
		seen[vs[0].Ticket] = true
		if err := b.settle(ctx, vs); err != nil {
			b.h.log.Warn("move the ticket of its variants", "ticket", vs[0].Ticket.String(), "err", err)
		}
	}
}

// settle moves the ticket of variants vs to VERIFICATION once each is in
// VERIFICATION or failed, and one at least is in VERIFICATION.
func (b bestOfN) settle(ctx context.Context, vs []board.Variant) error {
	ready := 0
	for _, v := range vs {
		if v.State == board.VariantFailed {
			continue
		}
		t, err := b.h.opts.Store.Ticket(ctx, v.Ref)
		if err != nil {
			return err
		}
		if t.State != board.Verification {
			return nil
		}
		ready++
	}
	t, err := b.h.opts.Store.Ticket(ctx, vs[0].Ticket)
	if err != nil || ready == 0 || t.State != board.InProgress {
		return err
	}
	if _, err := b.h.opts.Store.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.Verification, Actor: board.System}, runtimeAuthor); err != nil {
		return err
	}
	_, err = b.h.opts.Store.AddComment(ctx, t.Ref(), board.Comment{AuthorType: board.System, AuthorName: runtimeAuthor, Kind: board.KindStatus,
		Content: fmt.Sprintf("%d of its %d variants reached VERIFICATION. Compare them (`bonsai ticket variants %s`, or the ticket page's Variants), then approve one (it lands; the others are closed) or return one with feedback.",
			ready, len(vs), t.Ref())})
	return err
}
