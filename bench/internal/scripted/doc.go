// Package scripted holds what the benchmarks that run whole heartbeats
// share (bench/heartbeat, bench/agents): a scripted Anthropic Messages
// endpoint that answers after a fixed latency, and a board seeded with
// projects on repositories of their own, each with IN_PROGRESS tickets.
package scripted
