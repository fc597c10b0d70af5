package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// ticketExists reports an unknown ticket ID as ENOTFOUND.
func ticketExists(tx *tx, ticketID string) error {
	return tx.expect(true, board.Errorf(board.ENOTFOUND, "no ticket with id %q", ticketID), `SELECT 1 FROM tickets WHERE id = ?`, ticketID)
}

// AppendTranscript appends lines to a ticket's transcript; see
// store.Transcripts.
func (db *DB) AppendTranscript(ctx context.Context, ticketID string, first int64, lines [][]byte) error {
	if err := store.CheckTranscriptLines(lines); err != nil {
		return err
	}
	err := db.inTx(ctx, false, func(tx *tx) error {
		if err := ticketExists(tx, ticketID); err != nil {
			return err
		}
		var have int64
		if err := tx.queryRow(`SELECT coalesce(max(n) + 1, 0) FROM transcript_lines WHERE ticket_id = ?`, ticketID).Scan(&have); err != nil {
			return err
		}
		if first != have {
			return transcriptConflict(have, first)
		}
		st, err := tx.sqlTx.PrepareContext(ctx, db.rebind(`INSERT INTO transcript_lines (ticket_id, n, line) VALUES (?, ?, ?)`))
		if err != nil {
			return err
		}
		defer st.Close()
		for i, l := range lines {
			if _, err := st.ExecContext(ctx, ticketID, first+int64(i), string(l)); err != nil {
				if db.conflict(err) { // another writer was quicker
					return transcriptConflict(first+1, first)
				}
				return err
			}
		}
		return nil
	})
	return wrap(err, "append to the transcript of ticket %s", ticketID)
}

// transcriptConflict is the error of an append that another writer beat.
func transcriptConflict(have, first int64) error {
	return board.Errorf(board.ECONFLICT, "the transcript has %d lines or more, not %d: another writer appended to it, or this copy is stale", have, first)
}

// TranscriptLines walks a ticket's stored transcript; see
// store.Transcripts. An error of fn is returned as it is.
func (db *DB) TranscriptLines(ctx context.Context, ticketID string, from int64, fn func(n int64, line []byte) error) error {
	var line sql.RawBytes
	var stopped error
	err := each(ctx, db, func(s scanner) error {
		var n int64
		if err := s.Scan(&n, &line); err != nil {
			return err
		}
		stopped = fn(n, line)
		return stopped
	}, `SELECT n, line FROM transcript_lines WHERE ticket_id = ? AND n >= ? ORDER BY n`, ticketID, from)
	if err != nil && err != stopped {
		return fmt.Errorf("read the transcript of ticket %s: %w", ticketID, err)
	}
	return err
}

// TranscriptSize counts a ticket's stored transcript lines and the bytes
// of the file they make; see store.Transcripts.
func (db *DB) TranscriptSize(ctx context.Context, ticketID string) (lines, size int64, err error) {
	err = db.queryRowContext(ctx, `SELECT count(*), coalesce(sum(octet_length(line) + 1), 0) FROM transcript_lines WHERE ticket_id = ?`, ticketID).Scan(&lines, &size)
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
	err := db.inTx(ctx, false, func(tx *tx) error {
		if err := ticketExists(tx, ticketID); err != nil {
			return err
		}
		_, err := tx.exec(`INSERT INTO transcript_live (ticket_id, data, version) VALUES (?, ?, 1)
			ON CONFLICT (ticket_id) DO UPDATE SET
				data = CASE WHEN ? THEN excluded.data ELSE transcript_live.data || excluded.data END,
				version = transcript_live.version + 1`, ticketID, string(data), fresh)
		return err
	})
	return wrap(err, "write the live file of ticket %s", ticketID)
}

// Live returns a ticket's live file; see store.Transcripts.
func (db *DB) Live(ctx context.Context, ticketID string) ([]byte, int64, error) {
	var data []byte
	var version int64
	err := db.queryRowContext(ctx, `SELECT data, version FROM transcript_live WHERE ticket_id = ?`, ticketID).Scan(&data, &version)
	if err = absent(err); err != nil {
		return nil, 0, fmt.Errorf("read the live file of ticket %s: %w", ticketID, err)
	}
	return data, version, nil
}
