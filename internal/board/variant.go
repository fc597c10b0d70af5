package board

import (
	"fmt"
	"strings"
	"time"
)

// Best of N (docs/heartbeat.md, "Variants"): a ticket run N ways at once.
// Each way, a variant, is a ticket of its own that the variants table
// ties to the ticket compared: it has its own worktree, branch, runs,
// transcript, evidence, review record and budget, and its own engine and
// model. The ticket waits for its variants (it is blocked by them) and
// shows them; approving one lands it and closes the others.

// The bounds of a best of N.
const (
	MinVariants = 2
	MaxVariants = 5
)

// VariantState is where a variant stands. A variant being worked or in
// VERIFICATION is running; its ticket's state says which.
type VariantState string

// The variant states.
const (
	VariantRunning VariantState = "running"
	// VariantChosen: a person approved it (it landed) or returned it (its
	// branch became the ticket's).
	VariantChosen VariantState = "chosen"
	// VariantClosed: another was chosen; its branch and worktree are gone.
	VariantClosed VariantState = "closed"
	// VariantFailed: it could not run (its engine is not installed); the
	// reason says why.
	VariantFailed VariantState = "failed"
)

// InFlight reports whether the variant still counts as work of its
// ticket: nobody chose among the variants yet.
func (s VariantState) InFlight() bool { return s == VariantRunning }

// VariantSpec is one way to run a ticket: an engine and a model.
type VariantSpec struct {
	Engine Engine `json:"engine"`
	Model  string `json:"model"`
}

// String is the spec as typed: "engine:provider/model".
func (s VariantSpec) String() string { return s.Engine.String() + ":" + s.Model }

// ParseVariantSpecs reads a comma-separated list of engine:model specs
// ("bonsai:anthropic/claude-sonnet-4-5,codex:openai/gpt-5"): an engine
// Bonsai knows and a provider/model id, MinVariants to MaxVariants of
// them. The same spec may appear twice (two tries of one model).
func ParseVariantSpecs(list string) ([]VariantSpec, error) {
	var specs []VariantSpec
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		eng, model, ok := strings.Cut(item, ":")
		if !ok || strings.TrimSpace(eng) == "" {
			return nil, Errorf(EINVALID, "variant %d %q is not engine:model (e.g. bonsai:anthropic/claude-sonnet-4-5)", i+1, item)
		}
		e, err := ParseEngine(eng)
		if err != nil {
			return nil, Errorf(EINVALID, "variant %d %q: %v", i+1, item, err)
		}
		model = strings.TrimSpace(model)
		if err := ValidateModelID(model); err != nil || model == "" {
			return nil, Errorf(EINVALID, "variant %d %q: the model must be provider/model (e.g. openai/gpt-5)", i+1, item)
		}
		specs = append(specs, VariantSpec{Engine: e, Model: model})
	}
	if len(specs) < MinVariants || len(specs) > MaxVariants {
		return nil, Errorf(EINVALID, "give %d to %d variants, not %d", MinVariants, MaxVariants, len(specs))
	}
	return specs, nil
}

// Variant is one way a ticket is run (a best of N's row).
type Variant struct {
	// Ticket is the ticket compared; Ref is the variant's own ticket.
	Ticket Ref `json:"ticket"`
	Ref    Ref `json:"ref"`
	// Round counts the ticket's best of N runs, from 1; Number is the
	// variant's place in its round, from 1.
	Round  int    `json:"round"`
	Number int    `json:"number"`
	Engine Engine `json:"engine"`
	Model  string `json:"model"`
	// BudgetUSD and BudgetTokens are the variant's share of the ticket's
	// caps (0: none).
	BudgetUSD    float64      `json:"budgetUsd,omitempty"`
	BudgetTokens int64        `json:"budgetTokens,omitempty"`
	State        VariantState `json:"state"`
	// Reason says why a variant failed or was closed.
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Spec is the variant's engine and model.
func (v Variant) Spec() VariantSpec { return VariantSpec{Engine: v.Engine, Model: v.Model} }

// VariantTitle is the title of variant n of ticket t run as spec, within
// MaxTitle.
func VariantTitle(t Ticket, n int, spec VariantSpec) string {
	suffix := fmt.Sprintf(" [variant %d of %s: %s]", n, t.Ref(), spec)
	title := t.Title
	for len(title)+len(suffix) > MaxTitle && len(title) > 0 {
		_, size := lastRune(title)
		title = title[:len(title)-size]
	}
	return strings.TrimSpace(title) + suffix
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			return rune(s[i]), len(s) - i
		}
	}
	return 0, len(s)
}

// NumberedVariant returns the variant numbered n of vs.
func NumberedVariant(vs []Variant, n int) (Variant, error) {
	for _, v := range vs {
		if v.Number == n {
			return v, nil
		}
	}
	if len(vs) == 0 {
		return Variant{}, Errorf(ENOTFOUND, "the ticket has no variants")
	}
	return Variant{}, Errorf(ENOTFOUND, "%s has no variant %d (it has 1 to %d)", vs[0].Ticket, n, len(vs))
}

// CheckVariantMove refuses a person's move of ticket ref while vs, its
// variants, are in flight: they hold its work, and choosing one (approve,
// or return with feedback) is what moves it on.
func CheckVariantMove(vs []Variant, ref Ref) error {
	if len(vs) == 0 || vs[0].Ticket != ref {
		return nil
	}
	for _, v := range vs {
		if v.State.InFlight() {
			return Errorf(EREFUSED, "%s runs as %d variants; choose one first: bonsai ticket variants %s --approve N, or --return N --feedback TEXT",
				ref, len(vs), ref)
		}
	}
	return nil
}
