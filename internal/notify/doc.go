// Package notify sends notifications off the machine: the channels
// (generic webhook, ntfy, Slack, Discord, email over SMTP with STARTTLS,
// the desktop), the messages they carry, and the delivery loop that drains
// the store's outbox with leases, retries and backoff.
//
// Notifications are written to the outbox by the store, in the transaction
// of the event that causes them (docs/notifications.md); this package only
// delivers them, so a slow or dead endpoint never holds up the work that
// caused them.
package notify
