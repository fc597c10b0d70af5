// Package tool is the one contract between the agent loop and the tools
// the model calls: the coding tools of internal/tools and the ticket
// tools of internal/heartbeat/tickettool implement [Tool] directly, and
// every host runs a call through a [Checked] tool, the one place that
// validates arguments and turns a panic into an error result.
package tool
