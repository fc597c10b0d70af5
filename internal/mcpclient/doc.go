// Package mcpclient connects Bonsai's own agent to MCP servers with the
// official Go SDK: stdio servers started through the workspace's
// Executor (so inside the sandbox when the run is sandboxed) and
// streamable HTTP servers. Each server's tools become tool.Tool values
// named mcp__<server>__<tool>, which the command gate judges like any
// other tool (internal/gate).
//
// A server starts on the first call of one of its tools when its tool
// list is cached from an earlier run, and is stopped by Close. A server
// that crashes, hangs on initialise or speaks malformed JSON-RPC makes its
// tools return errors the model reads; it never fails the run. A tool
// whose input schema is not valid JSON Schema is left out with a warning.
package mcpclient
