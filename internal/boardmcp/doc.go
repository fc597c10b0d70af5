// Package boardmcp serves Bonsai tools over the Model Context Protocol
// with the official Go SDK. [NewServer] is the generic bridge: any list of
// tool.Tool values becomes the tools of an *mcp.Server, each call validated
// and run through tool.Checked exactly as the agent loop runs it. The board
// tools for a person's MCP client (list projects, list and show tickets,
// create, comment, ask, plan, move) live here too, built on small
// interfaces the CLI fills with the store; an engine working a ticket gets
// the ticket tools of heartbeat/tickettool through the same bridge.
package boardmcp
