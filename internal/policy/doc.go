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
// literal word, is never allowed.
//
// Judge is pure: it reads no files and no environment; everything it knows
// comes from the command and the [Config]. docs/policy.md describes the rules,
// the modes, the pattern syntax and the known limits.
package policy
