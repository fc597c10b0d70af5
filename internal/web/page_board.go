package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// columnLimit is how many cards a column shows; past it the column says how
// many more there are and the filter finds them. It keeps a board with
// thousands of done tickets fast to render and to scroll.
const columnLimit = 100

// card is a ticket on the board with what its badges need, computed once
// so that the template only reads fields (a board renders hundreds).
type card struct {
	board.Ticket
	Running  bool    // an agent works on it now
	CostUSD  float64 // what its finished runs cost
	Lower    string  // the title in lower case, for the filter
	Updated  int64   // UpdatedAt in unix ms, for the order
	PrioName string
	Cost     string // CostUSD as money, "" when nothing was spent
	// PR is the ticket's pull request, nil when it has none.
	PR *prBadge
	// Landed is the short commit the work landed as without a pull
	// request; LandFailed says the last try to land it failed.
	Landed     string
	LandFailed bool
	// Thumb is the URL of the ticket's first picture, "" for none.
	Thumb string
	// Progress is a parent's sub-tickets done, e.g. "2/3 done".
	Progress string
	// Variants is a ticket's variants in flight, e.g. "3 variants".
	Variants string
}

// prBadge is what a card shows of a ticket's pull request.
type prBadge struct {
	Label  string // "PR #3", or on GitLab "MR !3"
	State  board.PRState
	Checks board.Checks
	URL    string
}

// withLanding returns c with the pull request of landing l, or the
// commit it landed as, if any.
func (c card) withLanding(l *board.Landing) card {
	if l == nil {
		return c
	}
	c.LandFailed = l.Error != ""
	if l.PRNumber == 0 {
		if l.Commit != "" {
			c.Landed = l.Commit[:min(len(l.Commit), 7)]
		}
		return c
	}
	label := "PR #" + strconv.Itoa(l.PRNumber)
	if l.Forge == "gitlab" {
		label = "MR !" + strconv.Itoa(l.PRNumber)
	}
	c.PR = &prBadge{Label: label, State: l.PRState, Checks: l.Checks, URL: l.PRURL}
	return c
}

type column struct {
	State board.State
	Cards []card
	Total int // cards in the column, shown or not
}

// More returns how many cards the column does not show.
func (c column) More() int { return c.Total - len(c.Cards) }

type boardView struct {
	Project board.Project
	Columns []column
	Query   string
	Cursor  int64 // the event the board is current with; the stream resumes there
}

func (s *Server) card(t board.Ticket) card {
	running, cost := s.runs.ticket(t.ID)
	c := card{Ticket: t, Running: running, CostUSD: cost, Lower: strings.ToLower(t.Title),
		Updated: t.UpdatedAt.UnixMilli(), PrioName: board.PriorityName(t.Priority)}
	if cost > 0 {
		c.Cost = board.USD(cost)
	}
	return c
}

// cardOrder sorts a column: higher priority first, then most recently
// updated. board.js keeps the same order when it places live updates.
func cardOrder(a, b *board.Ticket) int {
	if a.Priority != b.Priority {
		return a.Priority - b.Priority
	}
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return b.Number - a.Number
}

// matches reports whether t matches the filter text q (lower case): a
// number ("12" or "#12") or words of the title.
func matches(t board.Ticket, q string) bool {
	if q == "" {
		return true
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(q, "#")); err == nil && n == t.Number {
		return true
	}
	return strings.Contains(strings.ToLower(t.Title), q)
}

func (s *Server) boardPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	cursor := s.feed.cursor() // before the read: nothing newer can be missed
	p, err := s.store.Project(ctx, r.PathValue("slug"))
	if err != nil {
		return err
	}
	ts, err := s.cards.tickets(ctx, p)
	if err != nil {
		return err
	}
	ls, err := s.store.Landings(ctx, store.LandingFilter{ProjectSlug: p.Slug})
	if err != nil {
		return err
	}
	thumbs, err := s.store.FirstImages(ctx, p.Slug)
	if err != nil {
		return err
	}
	landings := make(map[int]*board.Landing, len(ls))
	for i := range ls {
		landings[ls[i].Ref.Number] = &ls[i]
	}
	progress, err := s.store.SubTicketProgress(ctx, p.Slug)
	if err != nil {
		return err
	}
	variants, err := s.loadBoardVariants(ctx, p.Slug)
	if err != nil {
		return err
	}
	v := boardView{Project: p, Query: strings.TrimSpace(r.URL.Query().Get("q")), Cursor: cursor}
	q := strings.ToLower(v.Query)
	byState := map[board.State][]*board.Ticket{}
	for i := range ts {
		if t := &ts[i]; matches(*t, q) && !variants.hidden[t.Number] {
			byState[t.State] = append(byState[t.State], t)
		}
	}
	for _, st := range board.States {
		ptrs := byState[st]
		slices.SortFunc(ptrs, cardOrder)
		col := column{State: st, Total: len(ptrs)}
		for _, t := range ptrs[:min(len(ptrs), columnLimit)] {
			col.Cards = append(col.Cards, s.card(*t).withLanding(landings[t.Number]).withThumb(thumbs[t.ID]).withProgress(progress).withVariants(variants))
		}
		v.Columns = append(v.Columns, col)
	}
	s.render(w, r, http.StatusOK, "board", pageData{Title: p.Name, Project: p.Slug, Data: v})
	return nil
}

// quickAdd creates a ticket from the board's quick-add form. htmx gets the
// new card; a plain form post goes back to the board.
func (s *Server) quickAdd(w http.ResponseWriter, r *http.Request) error {
	in := newTicketInput{Title: r.PostFormValue("title"), State: r.PostFormValue("state")}
	if v := r.PostFormValue("priority"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil {
			return badRequest("priority must be 0 (urgent) to 4 (none)")
		}
		in.Priority = &p
	}
	t, err := s.createWithFiles(r, r.PathValue("slug"), in)
	if err != nil {
		return err
	}
	if r.Header.Get("HX-Request") == "" {
		http.Redirect(w, r, "/p/"+t.ProjectSlug, http.StatusSeeOther)
		return nil
	}
	s.fragment(w, r, http.StatusCreated, "card", s.card(t))
	return nil
}

// boardEvents streams the board's changes: each changed ticket of the
// project as its rendered card ("card" events), which app.js puts in the
// right column, followed by the columns' counts ("counts", JSON).
func (s *Server) boardEvents(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := s.store.Project(ctx, r.PathValue("slug"))
	if err != nil {
		return err
	}
	cursor, err := s.startCursor(r)
	if err != nil {
		return err
	}
	variants, err := s.loadBoardVariants(ctx, p.Slug)
	if err != nil {
		return err
	}
	st, err := newStream(w)
	if err != nil {
		return nil
	}
	var buf bytes.Buffer
	s.follow(ctx, st, cursor, func(it item) error {
		e := it.Event
		if e.ProjectID != p.ID || e.TicketID == "" {
			return nil
		}
		t := it.Ticket
		if t == nil { // an event older than the feed's memory
			ref, ok := s.runs.ref(e.TicketID)
			if !ok {
				return nil
			}
			tk, err := s.store.Ticket(ctx, ref)
			if err != nil {
				return nil
			}
			tk = slim(tk)
			t = &tk
		}
		if variants.hidden[t.Number] || e.Type == board.EventTicketCreated || e.Type == board.EventTicketLinked {
			if variants, err = s.loadBoardVariants(ctx, p.Slug); err != nil || variants.hidden[t.Number] {
				return err
			}
		}
		c := s.card(*t).withVariants(variants)
		if l, err := s.store.Landing(ctx, t.Ref()); err == nil {
			c = c.withLanding(&l)
		}
		if pr, err := s.store.SubTicketProgress(ctx, p.Slug); err == nil {
			c = c.withProgress(pr) // a parent's card keeps its progress
		}
		buf.Reset()
		if err := s.pages[""].ExecuteTemplate(&buf, "card", c); err != nil {
			return err
		}
		if err := st.send(e.ID, "card", buf.String()); err != nil {
			return err
		}
		counts, err := s.cards.counts(ctx, p)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(counts)
		return st.send(0, "counts", string(b))
	})
	return nil
}
