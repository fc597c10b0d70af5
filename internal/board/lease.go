package board

import "time"

// Lease is a worker's hold on a ticket while its agent works it, on a
// board several machines share (issue 18, docs/postgres.md): a ticket
// has at most one lease, and a project at most its max-agents
// (AgentSettings.Agents), whichever machines run them.
// The worker renews it while the agent runs and releases it at the end;
// a lease past ExpiresAt belongs to a worker that died or lost the store,
// and expiring it marks that worker's run interrupted and frees the
// ticket.
type Lease struct {
	Ref       Ref    `json:"ref"`
	TicketID  string `json:"ticketId"`
	ProjectID string `json:"projectId"`
	// Worker names the holder, as runs record it ("host:pid").
	Worker     string    `json:"worker"`
	AcquiredAt time.Time `json:"acquiredAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

// DefaultLeaseTTL is how long a lease lasts without renewal; its run
// renews it every third of that.
const DefaultLeaseTTL = 30 * time.Second

// EventLeaseExpired is a lease that ran out: its worker stopped renewing
// it. Data names the worker and how many of its runs were interrupted.
const EventLeaseExpired EventType = "lease.expired"

// LeaseInterruptedError is the error text of a run whose lease expired.
const LeaseInterruptedError = "its worker stopped renewing the ticket's lease (the machine died or lost the store)"
