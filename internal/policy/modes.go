package policy

import "strings"

// readers only read, whatever their arguments (beyond the checks in readOnly).
var readers = set("ls", "cat", "head", "tail", "less", "more", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack",
	"pwd", "echo", "printf", "true", "false", "test", "[", ":", "which", "type", "file", "stat", "du", "df",
	"diff", "cmp", "cut", "tr", "basename", "dirname", "realpath", "readlink", "env", "printenv", "uname",
	"whoami", "id", "nl", "od", "hexdump", "sha256sum", "sha1sum", "sha512sum", "md5sum", "cksum", "b2sum",
	"column", "comm", "join", "paste", "fold", "rev", "tac", "seq", "jq", "fd", "fdfind", "ps", "cd",
	"command", "sleep", "tree", "nohup")

// gitReaders are the git subcommands that only read.
var gitReaders = set("status", "diff", "log", "show", "blame", "rev-parse", "ls-files", "ls-tree", "grep",
	"describe", "shortlog", "cat-file", "rev-list", "merge-base", "show-ref", "for-each-ref", "help",
	"version", "name-rev", "whatchanged", "annotate", "count-objects", "check-ignore", "var")

// goReaders are the go subcommands that only read. go test, build and run
// execute or compile code the agent wrote, so a project allows them with a
// pattern ("go test *") rather than the built-in list.
var goReaders = set("vet", "list", "version", "doc", "help")

// readOnly reports whether a command is on the built-in read-only list:
// a reader given none of its escapes (see escapes).
func readOnly(name string, ws []word) bool {
	args := ws[1:]
	if escapes(name, args) {
		return false
	}
	switch name {
	case "find", "sed", "sort", "uniq", "date":
		return true
	case "hostname":
		return len(args) == 0
	case "git":
		return gitReads(args)
	case "go":
		if len(args) == 0 {
			return true
		}
		if args[0].text == "env" {
			return !hasAny(args, "-w", "-u")
		}
		return goReaders[args[0].text]
	}
	return readers[name]
}

// readOnlyCandidate reports whether a command would be on the read-only
// list but for its escapes: a reader, or git or go with a reading
// subcommand.
func readOnlyCandidate(name string, args []word) bool {
	switch name {
	case "find", "sed", "sort", "uniq", "date", "hostname":
		return true
	case "git":
		return gitReads(args)
	case "go":
		return len(args) == 0 || goReaders[args[0].text] || args[0].text == "env"
	}
	return readers[name]
}

// gitReads reports whether a git command only reads.
func gitReads(args []word) bool {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].text, "-") {
		if gitTakesArg[args[i].text] {
			i++
		}
		i++
	}
	if i >= len(args) {
		return true
	}
	sub, rest := args[i].text, args[i+1:]
	switch sub {
	case "branch":
		return onlyFlags(rest, "-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--list", "-l", "--show-current", "--no-color", "--color")
	case "tag":
		return len(rest) == 0 || hasAny(rest, "-l", "--list")
	case "remote":
		p := firstPositional(rest)
		return p == "" || p == "show" || p == "get-url"
	case "stash":
		p := firstPositional(rest)
		return p == "list" || p == "show"
	case "config":
		_, writes := gitConfigWrite(rest)
		return !writes && !hasAny(rest, "-e", "--edit")
	case "reflog":
		p := firstPositional(rest)
		return p == "" || p == "show"
	}
	return gitReaders[sub]
}

// mutators change files, refs, packages or processes whatever their arguments.
var mutators = set("rm", "rmdir", "mv", "cp", "tee", "touch", "mkdir", "ln", "chmod", "chown", "chgrp",
	"truncate", "shred", "install", "dd", "rsync", "scp", "patch", "unlink", "mkfifo", "mknod", "kill",
	"pkill", "killall", "wget", "gofmt", "apt", "apt-get", "dnf", "yum", "brew", "apk", "pacman", "zypper",
	"snap", "crontab", "systemctl", "reboot", "shutdown", "chattr", "setfacl", "ssh-keygen")

// installers are package managers; their install-like subcommands mutate.
var installers = map[string]map[string]bool{
	"npm":   set("install", "i", "ci", "add", "remove", "rm", "uninstall", "un", "update", "up", "upgrade", "link", "publish", "prune", "dedupe"),
	"pnpm":  set("install", "i", "add", "remove", "rm", "uninstall", "update", "up", "link", "publish", "prune"),
	"yarn":  set("install", "add", "remove", "upgrade", "up", "link", "publish"),
	"bun":   set("install", "i", "add", "remove", "rm", "update", "link", "publish"),
	"pip":   set("install", "uninstall", "download"),
	"pip3":  set("install", "uninstall", "download"),
	"pipx":  set("install", "uninstall", "upgrade", "inject"),
	"uv":    set("add", "remove", "sync", "lock", "pip", "tool"),
	"cargo": set("install", "uninstall", "add", "remove", "update", "publish", "fix", "fmt", "clean"),
	"gem":   set("install", "uninstall", "update"),
	"go":    set("get", "install", "mod", "generate", "work", "clean", "fmt", "fix"),
}

// mutating reports whether a command is known to change files, refs,
// packages or processes; read-only mode denies these.
func mutating(name string, ws []word) bool {
	args := ws[1:]
	if mutators[name] || (readOnlyCandidate(name, args) && escapes(name, args)) {
		return true
	}
	if subs, ok := installers[name]; ok {
		return subs[firstPositional(args)]
	}
	switch name {
	case "git":
		return !gitReads(args)
	case "perl", "ruby":
		return hasPrefixed(args, "-i", "-pi")
	case "curl":
		return hasPrefixed(args, "-o", "-O", "--output", "--remote-name", "-T", "--upload-file")
	}
	return false
}

func hasAny(ws []word, opts ...string) bool {
	for _, w := range ws {
		for _, o := range opts {
			if w.text == o {
				return true
			}
		}
	}
	return false
}

func hasPrefixed(ws []word, opts ...string) bool {
	for _, w := range ws {
		for _, o := range opts {
			if strings.HasPrefix(w.text, o) {
				return true
			}
		}
	}
	return false
}

func onlyFlags(ws []word, allowed ...string) bool {
	for _, w := range ws {
		if !hasAny([]word{w}, allowed...) {
			return false
		}
	}
	return true
}

func positional(ws []word) int {
	n := 0
	for _, w := range ws {
		if !strings.HasPrefix(w.text, "-") {
			n++
		}
	}
	return n
}
