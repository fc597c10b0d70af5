// Package agentexec decides the executor agents' commands run in, by each
// project's sandbox setting (docs/sandbox.md): the host for a project
// with its sandbox off, else the system's sandbox with the data directory
// and the home hidden, the clone's git directory reachable for commits,
// the project's own toolchain caches, its network (proxy, none or all,
// with the hosts the proxy allows), an engine CLI's install directories
// and the ticket's engine state; and the same for `bonsai run --sandbox`
// in a directory of its own. The connections a project's proxy refused
// are collected for the ticket.
//
// It opens no executor itself: cli passes the constructors of the local
// executor and of the system's sandbox (bubblewrap or Seatbelt), so
// this package holds the decisions and no concrete adapter.
package agentexec
