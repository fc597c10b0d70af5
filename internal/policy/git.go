package policy

import "strings"

// gitTakesArg lists git's global options that take the next word.
var gitTakesArg = set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source", "--exec-path")

// gitRules applies the git deny rules; ok reports whether one fired.
func gitRules(args []word, cmd string) (Decision, bool) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i].text
		if !strings.HasPrefix(a, "-") {
			break
		}
		key := ""
		switch {
		case a == "-c" && i+1 < len(args):
			key, _, _ = strings.Cut(args[i+1].text, "=")
		case strings.HasPrefix(a, "--config-env="):
			key, _, _ = strings.Cut(strings.TrimPrefix(a, "--config-env="), "=")
		case a == "--config-env" && i+1 < len(args):
			key, _, _ = strings.Cut(args[i+1].text, "=")
		}
		if key != "" && protectedKey(key) {
			return deny("git-config-override", "overriding "+key+" changes how git connects, authenticates or runs commands", cmd), true
		}
		if gitTakesArg[a] {
			i++
		}
	}
	if i >= len(args) {
		return Decision{}, false
	}
	sub, rest := args[i].text, args[i+1:]
	switch {
	case sub == "push":
		for _, a := range rest {
			t := a.text
			if t == "--force" || t == "--mirror" || strings.HasPrefix(t, "--force-with-lease") || t == "--force-if-includes" ||
				(strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "f")) ||
				strings.HasPrefix(t, "+") || strings.Contains(t, ":+") {
				return deny("git-force-push", "force-pushing rewrites shared history; push new commits instead", cmd), true
			}
		}
	case sub == "remote":
		switch firstPositional(rest) {
		case "add", "set-url", "rename", "remove", "rm":
			return deny("git-remote", "changing git remotes is not allowed; the workspace's remotes are set up by Bonsai", cmd), true
		}
	case sub == "config":
		if key, ok := gitConfigWrite(rest); ok && protectedKey(key) {
			return deny("git-config", "setting "+key+" changes how git connects, authenticates or runs commands", cmd), true
		}
	case sub == "credential" || strings.HasPrefix(sub, "credential-"):
		return deny("git-credential", "git credentials are off limits to agent commands", cmd), true
	}
	return Decision{}, false
}

// gitConfigWrite returns the key a git config invocation sets, if it sets one.
func gitConfigWrite(args []word) (string, bool) {
	var pos []string
	write := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--get" || t == "--get-all" || t == "--get-regexp" || t == "--get-urlmatch" ||
			t == "-l" || t == "--list" || t == "--get-color" || t == "--get-colorbool":
			return "", false
		case t == "--unset" || t == "--unset-all" || t == "--add" || t == "--replace-all" ||
			t == "--rename-section" || t == "--remove-section":
			write = true
		case t == "-e" || t == "--edit":
			return "credential.helper", true // an editor can set anything
		case t == "-f" || t == "--file" || t == "--blob" || t == "--type" || t == "--default" || t == "--comment" || t == "--value":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			pos = append(pos, t)
		}
	}
	if len(pos) > 0 {
		switch pos[0] {
		case "get", "list":
			return "", false
		case "set", "unset", "rename-section", "remove-section":
			if len(pos) > 1 {
				return pos[1], true
			}
			return "", false
		case "edit":
			return "credential.helper", true
		}
	}
	if len(pos) >= 2 || (write && len(pos) >= 1) {
		return pos[0], true
	}
	return "", false
}

// protectedKey reports whether a git configuration key changes remotes,
// credentials, transport, hooks or makes git run a program.
func protectedKey(key string) bool {
	k := strings.ToLower(key)
	for _, p := range []string{"credential.", "url.", "remote.", "include.", "includeif.", "alias.", "filter.", "pager.", "gpg."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	switch k {
	case "credential", "core.sshcommand", "core.hookspath", "core.fsmonitor", "core.gitproxy", "core.askpass",
		"core.pager", "core.editor", "sequence.editor", "diff.external", "http.proxy", "uploadpack.packobjectshook":
		return true
	}
	for _, s := range []string{".command", ".driver", ".textconv", ".program", ".helper", ".proxy"} {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// firstPositional returns the first word that is not an option.
func firstPositional(ws []word) string {
	for _, w := range ws {
		if !strings.HasPrefix(w.text, "-") {
			return w.text
		}
	}
	return ""
}
