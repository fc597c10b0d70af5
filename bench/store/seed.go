package storebench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// Board describes the board Seed writes.
type Board struct {
	Projects int    // active projects, slugs p000, p001, …
	Tickets  int    // tickets per project
	Seed     uint64 // the random source's seed; the same seed writes the same board
}

// Seed creates the database at path (which must not exist yet) and fills it
// with a realistic board: per project, about 60% of tickets DONE, 25% in
// BACKLOG, 5% each in VERIFICATION, RESEARCH and IN_PROGRESS (some blocked
// or returned), comment threads on most tickets with an unresolved human
// comment on about one in ten tickets in flight, a run per finished ticket
// and the ticket.created events.
//
// It writes the tables directly in one transaction, thousands of times
// faster than going through the store one ticket at a time, and keeps the
// invariants the store relies on (ticket numbers 1..N and the project's
// counter). TestSeed checks the result through the store.
func Seed(ctx context.Context, path string, b Board) error {
	db, err := sqlite.Open(ctx, path) // creates the schema
	if err != nil {
		return err
	}
	db.Close()
	raw, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer raw.Close()
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(b.Seed, 0x5eed))
	now := time.Now().UnixMilli()
	for p := range b.Projects {
		if err := w.project(rng, p, b.Tickets, now); err != nil {
			return fmt.Errorf("seed project %d: %w", p, err)
		}
	}
	return tx.Commit()
}

// writer holds the prepared inserts of one Seed.
type writer struct {
	proj, ticket, comment, run, event *sql.Stmt
	ctx                               context.Context
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{ctx: ctx}
	for _, s := range []struct {
		dst *(*sql.Stmt)
		q   string
	}{
		{&w.proj, `INSERT INTO projects (id, slug, name, repo, default_branch, last_ticket_number, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'main', ?, ?, ?)`},
		{&w.ticket, `INSERT INTO tickets (id, project_id, number, title, description, criteria, plan, state, sub_state,
			priority, branch, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.comment, `INSERT INTO comments (id, ticket_id, author_type, author_name, kind, content, resolved, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.run, `INSERT INTO runs (id, ticket_id, ticket_number, project_id, task, status, session_key, started_at, finished_at,
			input_tokens, output_tokens, cost_usd) VALUES (?, ?, ?, ?, 'implement', 'completed', ?, ?, ?, ?, ?, ?)`},
		{&w.event, `INSERT INTO events (type, project_id, ticket_id, actor, data, created_at) VALUES (?, ?, ?, 'human', ?, ?)`},
	} {
		st, err := tx.PrepareContext(ctx, s.q)
		if err != nil {
			return nil, err
		}
		*s.dst = st
	}
	return w, nil
}

func (w *writer) exec(st *sql.Stmt, args ...any) error {
	_, err := st.ExecContext(w.ctx, args...)
	return err
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

const (
	day  = int64(24 * time.Hour / time.Millisecond)
	year = 365 * day
)

// project writes one project and its tickets.
func (w *writer) project(rng *rand.Rand, p, tickets int, now int64) error {
	pid, slug := newID(), fmt.Sprintf("p%03d", p)
	created := now - year - rng.Int64N(30*day)
	if err := w.exec(w.proj, pid, slug, "Project "+slug, "/src/"+slug, tickets, created, now-rng.Int64N(day)); err != nil {
		return err
	}
	for n := 1; n <= tickets; n++ {
		if err := w.ticketAt(rng, pid, slug, n, now); err != nil {
			return err
		}
	}
	return nil
}

// ticketAt writes ticket n of a project with its comments, run and event.
func (w *writer) ticketAt(rng *rand.Rand, pid, slug string, n int, now int64) error {
	state, sub := pickState(rng)
	created := now - rng.Int64N(year)
	updated := min(now, created+rng.Int64N(30*day))
	tid := newID()
	criteria, _ := json.Marshal([]string{"the behaviour is covered by a test", "the docs say how to use it"})
	plan := ""
	if state != board.Backlog {
		plan = "1. Read the code.\n2. Change it.\n3. Test it."
	}
	err := w.exec(w.ticket, tid, pid, n, fmt.Sprintf("Ticket %d: make the thing better", n),
		strings.Repeat("Some description of the work to do. ", 6), string(criteria), plan,
		string(state), string(sub), rng.IntN(5), fmt.Sprintf("bonsai/%d", n), created, updated)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(map[string]any{"ref": fmt.Sprintf("%s#%d", slug, n), "state": state})
	if err := w.exec(w.event, "ticket.created", pid, tid, string(data), created); err != nil {
		return err
	}

	comment := func(author board.Actor, kind board.CommentKind, resolved bool, at int64) error {
		return w.exec(w.comment, newID(), tid, string(author), string(author)+"-name", string(kind),
			"A comment of a few words about the ticket.", resolved, min(at, now))
	}
	switch state {
	case board.Done, board.Verification:
		if err := comment(board.Agent, board.KindCompletion, false, updated-day); err != nil {
			return err
		}
		if state == board.Done {
			if err := comment(board.Human, board.KindApproval, true, updated); err != nil {
				return err
			}
		}
		return w.exec(w.run, newID(), tid, n, pid, board.SessionKey(pid, tid), updated-2*day, updated-2*day+600_000,
			40_000+rng.IntN(200_000), 2_000+rng.IntN(20_000), rng.Float64())
	case board.Research, board.InProgress:
		for i := range rng.IntN(3) {
			if err := comment(board.Agent, board.KindStatus, false, created+int64(i+1)*day); err != nil {
				return err
			}
		}
		if sub == board.SubBlocked {
			return comment(board.Agent, board.KindQuestion, false, updated)
		}
		if rng.IntN(10) == 0 {
			return comment(board.Human, board.KindNote, false, updated)
		}
	case board.Backlog:
		if rng.IntN(5) == 0 {
			return comment(board.Human, board.KindNote, false, created+day)
		}
	}
	return nil
}

// pickState draws a state and sub-state with the mix of a board that has
// been in use for a while.
func pickState(rng *rand.Rand) (board.State, board.SubState) {
	switch x := rng.IntN(100); {
	case x < 60:
		return board.Done, board.SubNone
	case x < 85:
		return board.Backlog, board.SubNone
	case x < 90:
		return board.Verification, board.SubNone
	case x < 95:
		if rng.IntN(10) == 0 {
			return board.Research, board.SubBlocked
		}
		return board.Research, board.SubNone
	default:
		switch rng.IntN(7) {
		case 0:
			return board.InProgress, board.SubBlocked
		case 1:
			return board.InProgress, board.SubReturned
		}
		return board.InProgress, board.SubNone
	}
}
