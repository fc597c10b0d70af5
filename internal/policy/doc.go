// Package policy judges a shell command before it runs.
//
// [Judge] parses the command with a real shell parser (mvdan.cc/sh/v3/syntax)
// and judges every simple command in it: each side of a pipe, list or
// subshell, every command substitution, process substitution and backtick,
// the strings given to `bash -c` and `eval` (parsed again, to a depth limit),
// and the command behind wrappers such as env, xargs, timeout, nohup, nice,
// command, exec and find -exec. Each simple command gets a [Verdict]; the
// worst one decides (Deny > Ask > Allow).
//
// A built-in deny list (privilege escalation, raw disk writes, recursive
// removal of the root, the home, the workspace or a top-level directory, fork
// bombs, downloads piped into a shell, force-pushes, changing git remotes,
// credentials or hooks, and touching the Bonsai data directory) applies in
// every mode. After it, the project's Ask and Allow patterns and the [Mode]
// decide. A command that cannot be parsed, or whose program name is not a
// literal word, is never allowed. Outside auto mode, a read-only program
// given one of its escapes (sed's e and w, rg --pre, git --output, …), a
// variable that changes what runs (PATH, LD_PRELOAD, MAKEFLAGS, …) and a
// program named by a path the agent may have written (./make) are never
// allowed without a person; an Allow pattern matches only the bare program
// it names, with no assignment, env variable or redirection into a file.
//
// Judge is pure: it reads no files and no environment; everything it knows
// comes from the command and the [Config]. docs/policy.md describes the rules,
// the modes, the pattern syntax and the known limits.
package policy
