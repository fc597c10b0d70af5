// Package tui is the full-screen terminal interface of `bonsai run`'s
// interactive mode: a multi-line editor, a scrolling transcript that
// streams the agent's answer, compact tool calls that expand, a status
// line and slash commands. It is built on Bubble Tea; the terminal is in
// raw mode, so Ctrl-C reaches it as a key and never as a signal to the
// agent's commands. Every text the model, a tool or a server wrote goes
// through termsafe before it reaches the screen.
//
// The line prompt of package runui stays the front end where this one
// cannot work: TERM=dumb, or stdout not a terminal (see [Usable]).
package tui
