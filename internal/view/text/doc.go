// Package text renders Bonsai's values for a terminal: the tables and
// reports of the one-shot commands (`bonsai status`, `ticket show`,
// `project show`, `heartbeat`), Markdown as plain text, and the small
// helpers they share (relative times, durations, cut strings). It parses
// no flags and opens nothing; cli loads the values and hands them here, so
// every rendering is tested without a command line. Its output is what the
// testscripts of internal/cli assert, byte for byte. Every text a person,
// an agent or a model wrote (titles, comments, plans, held commands,
// errors, reasons, table cells) goes through termsafe, so its control
// characters and bidi overrides show as escapes and never drive the
// terminal.
package text
