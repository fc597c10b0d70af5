package policy

import (
	"strings"
)

var (
	privileged = set("sudo", "su", "doas", "pkexec", "run0", "sudoedit")
	diskTools  = set("mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "sgdisk", "mkdosfs")
	diskWriter = set("tee", "cp", "mv", "shred", "install", "truncate")
	shells     = set("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh")
	// interpreters run a program read from standard input or an argument.
	interpreters = set("python", "python3", "python2", "perl", "ruby", "node", "php", "deno", "bun", "lua")
	downloaders  = set("curl", "wget", "fetch", "aria2c", "http", "xh", "lwp-request")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// denied applies the built-in deny rules to one unwrapped simple command and
// judges the commands it carries (bash -c, eval, find -exec). It reports
// whether the command is settled, so the mode need not judge it.
func (j *judge) denied(name string, ws []word, cmd string, depth int) bool {
	args := ws[1:]
	switch {
	case privileged[name]:
		j.note(deny("privilege-escalation", name+" raises privileges; agent commands run as the agent's user only", cmd))
		return true
	case strings.HasPrefix(name, "mkfs") || diskTools[name]:
		j.note(deny("raw-disk", name+" writes a disk or partition table", cmd))
		return true
	case name == "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.text, "of="); ok && isDisk(v) {
				j.note(deny("raw-disk", "dd onto a raw disk device is never allowed", cmd))
				return true
			}
		}
	case diskWriter[name]:
		for _, a := range args {
			if a.lit && isDisk(a.text) {
				j.note(deny("raw-disk", "writing a raw disk device is never allowed", cmd))
				return true
			}
		}
	case name == "rm":
		if recursiveRemoval(args, j.cfg) {
			j.note(deny("rm-rf-root", "recursive removal of the root, a top-level directory, the home or the workspace is never allowed", cmd))
			return true
		}
	case name == "git":
		if d, ok := gitRules(args, cmd); ok {
			j.note(d)
			return true
		}
	case shells[name]:
		return j.shell(name, args, cmd, depth)
	case name == "eval":
		return j.eval(args, cmd, depth)
	case name == "trap":
		return j.trap(args, cmd, depth)
	case name == "source" || name == "." || interpreters[name]:
		for _, a := range args {
			if j.fetches(a.node) {
				j.note(deny("download-to-shell", "running a download as code runs unreviewed code", cmd))
				return true
			}
		}
	case name == "find":
		j.findExec(args, depth)
	}
	return false
}

// shell judges sh/bash/...: the -c string is parsed and judged in turn.
func (j *judge) shell(name string, args []word, cmd string, depth int) bool {
	for _, a := range args {
		if j.fetches(a.node) {
			j.note(deny("download-to-shell", "running a download in a shell runs unreviewed code", cmd))
			return true
		}
	}
	for i, a := range args {
		t := a.text
		if !strings.HasPrefix(t, "-") || strings.HasPrefix(t, "--") || !strings.Contains(t, "c") {
			continue
		}
		for _, s := range args[i+1:] {
			if strings.HasPrefix(s.text, "-") && s.text != "-" {
				continue
			}
			if !s.lit {
				j.note(Decision{Verdict: Ask, Rule: "dynamic-shell-string", Reason: "the string given to " + name + " -c is not literal, so it cannot be judged", Command: cmd})
				return true
			}
			j.source(s.text, depth+1)
			return true
		}
		j.note(Decision{Verdict: Ask, Rule: "unparsable", Reason: name + " -c without a command string", Command: cmd})
		return true
	}
	return false
}

// eval judges its joined arguments as a command.
func (j *judge) eval(args []word, cmd string, depth int) bool {
	for _, a := range args {
		if j.fetches(a.node) {
			j.note(deny("download-to-shell", "evaluating a download runs unreviewed code", cmd))
			return true
		}
		if !a.lit {
			j.note(Decision{Verdict: Ask, Rule: "dynamic-eval", Reason: "eval's arguments are not literal, so the command cannot be judged", Command: cmd})
			return true
		}
	}
	j.source(joinTexts(args), depth+1)
	return true
}

// trap judges the action it sets, which the shell runs as a command: trap
// 'cmd' EXIT. trap -p and trap -l only print.
func (j *judge) trap(args []word, cmd string, depth int) bool {
	rest := skipFlags(args, nil)
	if len(rest) < 2 || rest[0].text == "" || rest[0].text == "-" {
		return false
	}
	if !rest[0].lit {
		j.note(Decision{Verdict: Ask, Rule: "dynamic-eval", Reason: "trap's action is not literal, so the command it runs cannot be judged", Command: cmd})
		return true
	}
	j.source(rest[0].text, depth+1)
	return false
}

// findExec judges the commands find runs with -exec, -execdir, -ok and -okdir.
func (j *judge) findExec(args []word, depth int) {
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
			k := i + 1
			for k < len(args) && args[k].text != ";" && args[k].text != "+" {
				k++
			}
			j.call(nil, args[i+1:k], false, depth)
			i = k
		}
	}
}

// isDisk reports whether p names a block device.
func isDisk(p string) bool {
	for _, d := range []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk",
		"/dev/disk", "/dev/rdisk", "/dev/mapper/", "/dev/md", "/dev/dm-", "/dev/loop", `\\.\physicaldrive`} {
		if strings.HasPrefix(strings.ToLower(p), d) {
			return true
		}
	}
	return false
}
