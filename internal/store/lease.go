package store

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// LeaseColumns and LeaseFrom read leases with their tickets' refs, in the
// order ScanLease reads them; both stores' leases tables are alike.
const (
	LeaseColumns = `p.slug, t.number, l.ticket_id, l.project_id, l.worker, l.acquired_at, l.expires_at`
	LeaseFrom    = ` FROM leases l JOIN tickets t ON t.id = l.ticket_id JOIN projects p ON p.id = l.project_id`
)

// ScanLease reads a row of LeaseColumns.
func ScanLease(s Scanner) (board.Lease, error) {
	var l board.Lease
	var acquired, expires int64
	err := s.Scan(&l.Ref.Project, &l.Ref.Number, &l.TicketID, &l.ProjectID, &l.Worker, &acquired, &expires)
	l.AcquiredAt, l.ExpiresAt = millis(acquired), millis(expires)
	return l, err
}

// CheckLease refuses a lease request without a worker or a time.
func CheckLease(worker string, ttl time.Duration) error {
	if worker == "" {
		return board.Errorf(board.EINVALID, "a lease needs a worker")
	}
	if ttl <= 0 {
		return board.Errorf(board.EINVALID, "a lease needs a time to live above zero, got %s", ttl)
	}
	return nil
}
