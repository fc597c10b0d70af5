// Package board holds Bonsai's domain: projects, tickets, comments, runs and
// events, the states a ticket moves through, the rules for who may move it,
// and the policy that picks the next ticket an agent works on.
//
// The package does no I/O and imports only the standard library, so every rule
// here is a pure function that the stores, the CLI, the heartbeat and the web
// UI share. Stores persist what these functions decide.
package board
