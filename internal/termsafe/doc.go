// Package termsafe makes text that people, agents or models wrote safe to
// print on a terminal. A terminal acts on the control characters it is
// sent: an escape sequence in a comment can move the cursor, erase lines,
// retitle the window, set the clipboard (OSC 52) or make a link (OSC 8),
// and a carriage return or a bidirectional override can draw one command
// over another, so a person approves a command they never saw. Text and
// Line show every such character as a visible escape instead ("\x1b",
// "\r", "\u202e") and leave every other character as written.
//
// It is for terminal text only: JSON output (--json, bonsai run's json
// and rpc modes) carries the text as data, unchanged.
package termsafe
