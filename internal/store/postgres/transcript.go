package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Transcript writes append no events, so they do not take the store's
// write lock: writers of different tickets never wait for each other, and
// two writers of one ticket meet at the primary key.

// ticketExists reports an unknown ticket ID as ENOTFOUND.
func ticketExists(ctx context.Context, q querier, ticketID string) error {
	var one int
	err := q.QueryRow(ctx, `SELECT 1 FROM tickets WHERE id = $1`, ticketID).Scan(&one)
	if noRows(err) {
		return board.Errorf(board.ENOTFOUND, "no ticket with id %q", ticketID)
	}
	return err
}

// AppendTranscript appends lines to a ticket's transcript; see
// store.Transcripts.
func (db *DB) AppendTranscript(ctx context.Context, ticketID string, first int64, lines [][]byte) error {
	if err := store.CheckTranscriptLines(lines); err != nil {
		return err
	}
	err := db.inTx(ctx, false, func(tx *tx) error {
		if err := ticketExists(ctx, tx, ticketID); err != nil {
			return err
		}
		var have int64
		if err := tx.queryRow(`SELECT coalesce(max(n) + 1, 0) FROM transcript_lines WHERE ticket_id = $1`, ticketID).Scan(&have); err != nil {
			return err
		}
		if first != have {
			return transcriptConflict(have, first)
		}
		ns := make([]int64, len(lines))
		ls := make([]string, len(lines))
		for i, l := range lines {
			ns[i], ls[i] = first+int64(i), string(l)
		}
		_, err := tx.exec(`INSERT INTO transcript_lines (ticket_id, n, line)
			SELECT $1, n, line FROM unnest($2::bigint[], $3::text[]) AS l (n, line)`, ticketID, ns, ls)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation: another writer was quicker
			return transcriptConflict(first+1, first)
		}
		return err
	})
	return wrap(err, "append to the transcript of ticket %s", ticketID)
}

func transcriptConflict(have, first int64) error {
	return board.Errorf(board.ECONFLICT, "the transcript has %d lines or more, not %d: another writer appended to it, or this copy is stale", have, first)
}

// TranscriptLines walks a ticket's stored transcript; see
// store.Transcripts.
func (db *DB) TranscriptLines(ctx context.Context, ticketID string, from int64, fn func(n int64, line []byte) error) error {
	rows, err := db.pool.Query(ctx, `SELECT n, line FROM transcript_lines WHERE ticket_id = $1 AND n >= $2 ORDER BY n`, ticketID, from)
	if err != nil {
		return fmt.Errorf("read the transcript of ticket %s: %w", ticketID, err)
	}
	defer rows.Close()
	for rows.Next() {
		raw := rows.RawValues()
		var n int64
		if err := rows.Scan(&n, nil); err != nil {
			return fmt.Errorf("read the transcript of ticket %s: %w", ticketID, err)
		}
		if err := fn(n, raw[1]); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the transcript of ticket %s: %w", ticketID, err)
	}
	return nil
}

// TranscriptSize counts a ticket's stored transcript lines and the bytes
// of the file they make; see store.Transcripts.
func (db *DB) TranscriptSize(ctx context.Context, ticketID string) (lines, size int64, err error) {
	err = db.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(octet_length(line) + 1), 0)::bigint
		FROM transcript_lines WHERE ticket_id = $1`, ticketID).Scan(&lines, &size)
	if err != nil {
		return 0, 0, fmt.Errorf("size the transcript of ticket %s: %w", ticketID, err)
	}
	return lines, size, nil
}

// WriteLive stores or extends a ticket's live file; see
// store.Transcripts.
func (db *DB) WriteLive(ctx context.Context, ticketID string, data []byte, fresh bool) error {
	if err := store.CheckLive(data); err != nil {
		return err
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO transcript_live (ticket_id, data, version) VALUES ($1, $2, 1)
		ON CONFLICT (ticket_id) DO UPDATE SET
			data = CASE WHEN $3 THEN excluded.data ELSE transcript_live.data || excluded.data END,
			version = transcript_live.version + 1`, ticketID, string(data), fresh)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" { // foreign_key_violation
		return board.Errorf(board.ENOTFOUND, "no ticket with id %q", ticketID)
	}
	return wrap(err, "write the live file of ticket %s", ticketID)
}

// Live returns a ticket's live file; see store.Transcripts.
func (db *DB) Live(ctx context.Context, ticketID string) ([]byte, int64, error) {
	var data string
	var version int64
	err := db.pool.QueryRow(ctx, `SELECT data, version FROM transcript_live WHERE ticket_id = $1`, ticketID).Scan(&data, &version)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, 0, nil
	case err != nil:
		return nil, 0, fmt.Errorf("read the live file of ticket %s: %w", ticketID, err)
	}
	return []byte(data), version, nil
}
