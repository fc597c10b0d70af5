package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// Best of N on the web (docs/web.md, docs/api.md): the ticket page's "Run
// N ways" form, the comparison page /p/{slug}/{n}/variants with each
// variant side by side (diff, evidence, tokens, $, turns, time), its
// approve and return forms, and the same as JSON.

// VariantActions start and end a ticket's best of N (internal/cli's
// wiring: heartbeat.CreateVariants and a beat, land.Lander.Return).
type VariantActions interface {
	// Run creates the variants of ticket ref, one per spec, and starts a
	// beat for them; it returns a sentence for people.
	Run(ctx context.Context, ref board.Ref, specs []board.VariantSpec) (string, error)
	// Return makes variant n's branch ticket ref's and sends it back to
	// its agent with feedback, closing the others.
	Return(ctx context.Context, ref board.Ref, n int, author, feedback string) (board.Ticket, error)
}

// variantsPageView is the comparison page.
type variantsPageView struct {
	Ticket   board.Ticket
	Project  board.Project
	Variants []variantColumn
	InFlight bool
	// Err is why the last form failed, and Feedback what was typed.
	Err, Feedback string
}

// variantColumn is one variant as the page shows it.
type variantColumn struct {
	view.VariantView
	Diff    diffView
	DiffErr string
}

// loadVariants reads ticket ref's variants side by side.
func (s *Server) loadVariants(ctx context.Context, ref board.Ref) ([]view.VariantView, error) {
	st, ok := s.store.(view.VariantsReader)
	if !ok {
		return nil, nil
	}
	return view.LoadVariants(ctx, st, ref)
}

func (s *Server) variantsPage(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	v, err := s.loadVariantsPage(r.Context(), ref)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "variants", pageData{Title: ref.String() + " variants", Project: ref.Project, Data: v})
	return nil
}

func (s *Server) loadVariantsPage(ctx context.Context, ref board.Ref) (variantsPageView, error) {
	t, err := s.store.Ticket(ctx, ref)
	if err != nil {
		return variantsPageView{}, err
	}
	p, err := s.store.Project(ctx, ref.Project)
	if err != nil {
		return variantsPageView{}, err
	}
	vs, err := s.loadVariants(ctx, ref)
	if err != nil {
		return variantsPageView{}, err
	}
	v := variantsPageView{Ticket: t, Project: p}
	for _, vv := range vs {
		c := variantColumn{VariantView: vv}
		v.InFlight = v.InFlight || vv.State.InFlight()
		c.Diff, c.DiffErr = s.variantDiff(ctx, p, vv)
		v.Variants = append(v.Variants, c)
	}
	return v, nil
}

// variantDiff is the diff of a variant's branch, when the server shows
// diffs and the branch is still there.
func (s *Server) variantDiff(ctx context.Context, p board.Project, vv view.VariantView) (diffView, string) {
	d := diffView{Branch: vv.Branch, Base: p.DefaultBranch}
	if s.opts.Diff == nil || vv.State == board.VariantClosed || vv.State == board.VariantFailed {
		d.NoBranch = true
		return d, ""
	}
	t, err := s.store.Ticket(ctx, vv.Ref)
	if err != nil {
		return d, err.Error()
	}
	text, err := s.opts.Diff(ctx, p, t)
	if err != nil {
		return d, err.Error()
	}
	if text == "" && t.Branch == "" {
		d.NoBranch = true
		return d, ""
	}
	d.Files, d.Truncated = parseDiff(text)
	d.Empty = len(d.Files) == 0
	for _, f := range d.Files {
		d.Added += f.Added
		d.Deleted += f.Deleted
	}
	return d, ""
}

// variantsForm is the ticket page's "Run N ways" form.
func (s *Server) variantsForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	specs := r.PostFormValue("variants")
	_, err = s.runVariants(r.Context(), ref, specs)
	if err == nil {
		err = s.feed.poll(r.Context())
	}
	if err == nil {
		http.Redirect(w, r, "/p/"+ref.Project+"/"+strconv.Itoa(ref.Number)+"/variants", http.StatusSeeOther)
		return nil
	}
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		v.Forms.RunErr = msg
	})
}

func (s *Server) runVariants(ctx context.Context, ref board.Ref, list string) (string, error) {
	specs, err := board.ParseVariantSpecs(list)
	if err != nil {
		return "", err
	}
	if s.opts.Variants == nil {
		return "", board.Errorf(board.EREFUSED, "this server cannot start beats; run `bonsai ticket run %s --variants %s`", ref, list)
	}
	return s.opts.Variants.Run(ctx, ref, specs)
}

// variantChoiceForm approves or returns one variant from the comparison
// page.
func (s *Server) variantChoiceForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	feedback := r.PostFormValue("feedback")
	_, err = s.chooseVariant(r.Context(), ref, r.PathValue("v"), r.PathValue("action"), r.PostFormValue("comment"), feedback)
	if err == nil {
		http.Redirect(w, r, "/p/"+ref.Project+"/"+strconv.Itoa(ref.Number), http.StatusSeeOther)
		return nil
	}
	status, _, msg := classify(err)
	if status >= 500 || status == http.StatusNotFound {
		return err
	}
	v, lerr := s.loadVariantsPage(r.Context(), ref)
	if lerr != nil {
		return lerr
	}
	v.Err, v.Feedback = msg, feedback
	s.render(w, r, status, "variants", pageData{Title: ref.String() + " variants", Project: ref.Project, Data: v})
	return nil
}

// chooseVariant approves (lands) or returns variant n of ticket ref.
func (s *Server) chooseVariant(ctx context.Context, ref board.Ref, n, action, note, feedback string) (board.Ticket, error) {
	num, err := strconv.Atoi(n)
	if err != nil || num < 1 {
		return board.Ticket{}, board.Errorf(board.EINVALID, "variant %q is not a number", n)
	}
	vs, err := s.loadVariants(ctx, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	plain := make([]board.Variant, len(vs))
	for i, v := range vs {
		plain[i] = v.Variant
	}
	v, err := board.NumberedVariant(plain, num)
	if err != nil {
		return board.Ticket{}, err
	}
	if v.Ticket != ref {
		return board.Ticket{}, board.Errorf(board.EREFUSED, "%s is a variant; choose among the variants of %s", ref, v.Ticket)
	}
	if !v.State.InFlight() {
		return board.Ticket{}, board.Errorf(board.EREFUSED, "variant %d of %s is %s; nothing to choose", num, ref, v.State)
	}
	switch action {
	case "approve":
		if _, err := s.approve(ctx, v.Ref, note); err != nil {
			return board.Ticket{}, err
		}
		return s.store.Ticket(ctx, ref)
	case "return":
		if strings.TrimSpace(feedback) == "" {
			return board.Ticket{}, board.Errorf(board.EINVALID, "returning a variant needs feedback saying what to change")
		}
		if s.opts.Variants == nil {
			return board.Ticket{}, board.Errorf(board.EREFUSED, "this server cannot return variants; run `bonsai ticket variants %s --return %d --feedback TEXT`", ref, num)
		}
		return s.opts.Variants.Return(ctx, ref, num, s.opts.Author, feedback)
	}
	return board.Ticket{}, board.Errorf(board.ENOTFOUND, "no variant action %q; use approve or return", action)
}

func (s *Server) apiVariants(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	if _, err := s.store.Ticket(r.Context(), ref); err != nil {
		return err
	}
	vs, err := s.loadVariants(r.Context(), ref)
	if err != nil {
		return err
	}
	if vs == nil {
		vs = []view.VariantView{}
	}
	return writeJSON(w, http.StatusOK, vs)
}

func (s *Server) apiCreateVariants(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Variants []string `json:"variants"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	msg, err := s.runVariants(r.Context(), ref, strings.Join(in.Variants, ","))
	if err != nil {
		return err
	}
	vs, err := s.loadVariants(r.Context(), ref)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, map[string]any{"message": msg, "variants": vs})
}

func (s *Server) apiChooseVariant(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Comment  string `json:"comment"`
		Feedback string `json:"feedback"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &in); err != nil {
			return err
		}
	}
	t, err := s.chooseVariant(r.Context(), ref, r.PathValue("v"), r.PathValue("action"), in.Comment, in.Feedback)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view.NewTicket(t))
}

// ticketVariants returns the round of ticket t (a ticket run N ways, or
// one of its variants) for its page, and whether the page offers to run
// it N ways: it could run now, and it is no variant and has none in
// flight.
func (s *Server) ticketVariants(ctx context.Context, t board.Ticket, runNow bool) ([]board.Variant, bool, error) {
	st, ok := s.store.(interface {
		Variants(ctx context.Context, ref board.Ref) ([]board.Variant, error)
	})
	if !ok {
		return nil, false, nil
	}
	vs, err := st.Variants(ctx, t.Ref())
	if err != nil {
		return nil, false, err
	}
	form := s.opts.Variants != nil && runNow && t.State == board.InProgress
	for _, v := range vs {
		form = form && v.Ticket == t.Ref() && !v.State.InFlight()
	}
	return vs, form, nil
}
