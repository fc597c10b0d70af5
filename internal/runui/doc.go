// Package runui holds the front ends of `bonsai run`: print (-p), json
// (--mode json), rpc (--mode rpc, docs/rpc.md) and the interactive
// terminal. Each drives an agent that internal/agenthost assembled;
// internal/cli parses the flags, builds the agent and picks the front end.
package runui
