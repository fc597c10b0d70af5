// Package beater is the heartbeat loop of `bonsai up`: it fires `bonsai
// heartbeat` as a child process every heartbeat.intervalSec (read again
// before each wait), logs each beat's output and outcome, and tells the
// person what the beats do — a line when a run starts and when it ends,
// and why a ticket is not run each time that reason changes.
//
// What a beat does reaches the parent as structured events, never as
// parsed text: the child writes one JSON [Event] a line on a pipe the
// parent passes it (its descriptor named by [EventsEnv]; see
// [OpenEvents]), and the skip reasons are read from heartbeat.json once
// the beat ends.
package beater
