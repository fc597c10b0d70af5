package view

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// VariantView is one variant of a ticket run N ways, as the comparison
// shows it (`bonsai ticket variants --json`, the API, the web page): the
// variant, its own ticket's state and branch, what its runs consumed, its
// evidence (the agent's last completion comment: every criterion with its
// evidence, and the checks) and its review record.
type VariantView struct {
	board.Variant
	TicketState board.State    `json:"ticketState"`
	SubState    board.SubState `json:"subState,omitempty"`
	Title       string         `json:"title"`
	Branch      string         `json:"branch"`
	Runs        int            `json:"runs"`
	Running     bool           `json:"running"`
	board.Usage
	Turns int `json:"turns"`
	// DurationNs is the time its runs took.
	DurationNs time.Duration `json:"durationNs"`
	// Evidence is the agent's last completion comment, Markdown.
	Evidence string       `json:"evidence,omitempty"`
	Review   board.Review `json:"review"`
}

// VariantsReader is what LoadVariants reads.
type VariantsReader interface {
	Variants(ctx context.Context, ref board.Ref) ([]board.Variant, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	Review(ctx context.Context, ref board.Ref) (board.Review, error)
}

// LoadVariants reads the variants of ticket ref's latest round, side by
// side; none when the ticket was never run N ways.
func LoadVariants(ctx context.Context, st VariantsReader, ref board.Ref) ([]VariantView, error) {
	vs, err := st.Variants(ctx, ref)
	if err != nil {
		return nil, err
	}
	out := make([]VariantView, 0, len(vs))
	for _, v := range vs {
		vv, err := loadVariant(ctx, st, v)
		if err != nil {
			return nil, err
		}
		out = append(out, vv)
	}
	return out, nil
}

func loadVariant(ctx context.Context, st VariantsReader, v board.Variant) (VariantView, error) {
	t, err := st.Ticket(ctx, v.Ref)
	if err != nil {
		return VariantView{}, err
	}
	vv := VariantView{Variant: v, TicketState: t.State, SubState: t.SubState, Title: t.Title, Branch: t.Branch}
	runs, err := st.Runs(ctx, v.Ref)
	if err != nil {
		return vv, err
	}
	for _, r := range runs {
		vv.Runs++
		vv.Usage = vv.Usage.Add(r.Usage)
		vv.Turns += r.Turns
		vv.DurationNs += r.Duration()
		vv.Running = vv.Running || r.Status == board.RunRunning
	}
	cs, err := st.Comments(ctx, v.Ref)
	if err != nil {
		return vv, err
	}
	for _, c := range cs {
		if c.Kind == board.KindCompletion {
			vv.Evidence = c.Content
		}
	}
	vv.Review, err = st.Review(ctx, v.Ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		err = nil
	}
	return vv, err
}
