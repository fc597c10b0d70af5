// Package trackersync makes a project's issue tracker its inbox
// (docs/trackers.md): each beat, before the pick and with no model call,
// it lists the issues matching the project's query conditionally (one
// request when nothing changed), turns new ones into tickets, gives the
// comments of people who may steer to their tickets (unblocking a ticket
// that waits for an answer) and only counts and names the others, posts
// the agent's questions, status and completion comments to the issues
// marked as Bonsai's, mirrors the tickets' states, and stops a ticket
// whose issue was closed by hand. internal/tracker speaks the trackers;
// the store keeps what crossed, so nothing is created or delivered twice.
package trackersync
