package workspace

import (
	"context"
	"fmt"
	"strings"
)

// The clone's own git config (.git/config, the main worktree's
// config.worktree and the files they include) is shared with every ticket's
// worktree: `git config` run by the agent, or by a tool it runs, writes it.
// The runtime's git commands in the clone read it too, fetch while it
// holds the runtime's credentials. Before each host operation in the clone
// (openClone), checkConfig lists what git will read from there and refuses
// settings that change where git connects, what it sends, or make it run
// a program that cloneSettings cannot switch off. `-c` on the command line cannot undo
// them all (url.<any>.insteadOf, a remote named like the URL, include.path)
// and resetting credential.helper would also drop the user's own global
// helper, so the check, not overrides, is what keeps them out. Global and
// system config are the user's and are not checked.

// deniedSections are sections none of whose keys belong in a clone the
// runtime fetches and pushes from.
var deniedSections = map[string]bool{
	"credential": true, // helpers run programs and are handed the credentials
	"url":        true, // insteadOf / pushInsteadOf send the URL elsewhere
	"http":       true, // proxy, extra headers, CA and client certificates, cookies
	"include":    true, // pulls in a file the check may not see the same way
	"includeif":  true,
	"ssh":        true, // ssh.variant changes the arguments given to ssh
	"bundle":     true, // bundle URIs are fetched from another place
	"remotes":    true, // a remote group named like the URL turns one fetch into several
	"uploadpack": true, // commands of a serving git; never needed in the clone
	"receive":    true,
}

// deniedKeys are single keys (section.name, no subsection) refused.
var deniedKeys = map[string]bool{
	"core.sshcommand":           true,
	"core.gitproxy":             true,
	"core.askpass":              true,
	"core.alternaterefscommand": true, // run by fetch for the repository's alternates
	"core.worktree":             true, // a host directory the clone's commands would check files out to
	"fetch.bundleuri":           true,
	"transfer.bundleuri":        true,
	"extensions.partialclone":   true, // fetches missing objects from another remote on demand
	"push.gpgsign":              true, // runs gpg.program
	"push.pushoption":           true,
	"submodule.recurse":         true, // would fetch or push other repositories, whose config is not checked
	"fetch.recursesubmodules":   true,
	"push.recursesubmodules":    true,
}

// deniedRemoteKeys are the keys of remote.<name> that change where git
// connects or run a program, refused for every remote: the runtime passes
// the URL, not a remote name, but git still applies the settings of a
// remote named exactly like that URL.
var deniedRemoteKeys = map[string]bool{
	"pushurl": true, "uploadpack": true, "receivepack": true, "proxy": true,
	"proxyauthmethod": true, "vcs": true, "promisor": true,
}

// deniedKey reports whether key (as `git config --list` prints it) must not
// be in the clone's config when the runtime talks to url.
func deniedKey(key, url string) bool {
	section, rest, ok := strings.Cut(key, ".")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	sub, name := "", rest
	if i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	switch {
	case deniedSections[section]:
		return true
	case sub == "" && deniedKeys[section+"."+name]:
		return true
	case section == "protocol" && name == "allow":
		return true // protocol.allow, protocol.<name>.allow: ext:: runs a command
	case section == "gpg" && (name == "program" || name == "defaultkeycommand"):
		return true // gpg.program, gpg.<format>.program, gpg.ssh.defaultKeyCommand
	case section == "remote" && sub != "":
		if deniedRemoteKeys[name] {
			return true
		}
		// The agent may add remotes of its own (remote.upstream.url), but
		// not one named like the URL the runtime passes, which git would
		// use instead of it; `git remote add` refuses names with ':', which
		// every URL but a local path has.
		return name == "url" && (sub == url || strings.ContainsAny(sub, ":\\"))
	}
	return false
}

// checkConfig refuses, before a fetch or push of url in the clone
// projects/slug, settings of the clone's own config that would change where
// git connects or make it run a program (see deniedKey). It lists what git
// reads with includes followed, so a key an include pulls in is seen too,
// and fails closed when the config cannot be read. It returns what it
// read (see clonedConfig for what that may be used for).
func (g *gitRunner) checkConfig(ctx context.Context, slug, url string) (clonedConfig, error) {
	out, err := (&cloneGit{g: g, slug: slug}).run(ctx, "config", "--list", "--null", "--show-scope", "--show-origin")
	if err != nil {
		return nil, fmt.Errorf("read the git config of projects/%s: %w", slug, err)
	}
	conf := parseConfigList(out)
	var bad []ConfigSetting
	for _, e := range conf {
		if (e.Scope == "local" || e.Scope == "worktree") && deniedKey(e.Key, url) {
			bad = append(bad, e.ConfigSetting)
		}
	}
	if len(bad) > 0 {
		return nil, &UnsafeConfigError{Slug: slug, Settings: bad}
	}
	return conf, nil
}

// configEntry is one line of `git config --list`: the setting and its
// value.
type configEntry struct {
	ConfigSetting
	value string
}

// clonedConfig is a clone's config as checkConfig read it, the agent's
// commands not running in that worktree: it only tells whether a setting
// the runtime writes already holds the value the runtime would write
// (ensureIdentity, the remote's URL). No path, ref or setting is taken
// from it.
type clonedConfig []configEntry

// local is the value of key in the clone's own .git/config (as `git
// config --local` reads it: no includes), "" when unset.
func (c clonedConfig) local(key string) string {
	v := ""
	for _, e := range c {
		if e.Key == key && e.Scope == "local" && !e.Included {
			v = e.value
		}
	}
	return v
}

// any is the value of key as `git config key` reads it (every scope,
// includes followed, the last one wins), "" when unset.
func (c clonedConfig) any(key string) string {
	v := ""
	for _, e := range c {
		if e.Key == key {
			v = e.value
		}
	}
	return v
}

// parseConfigList parses `git config --list --null --show-scope
// --show-origin`: scope NUL origin NUL key [LF value] NUL, repeated.
func parseConfigList(out string) clonedConfig {
	fields := strings.Split(out, "\x00")
	var es clonedConfig
	for i := 0; i+2 < len(fields); i += 3 {
		scope, origin, kv := fields[i], fields[i+1], fields[i+2]
		key, value, _ := strings.Cut(kv, "\n")
		own := origin == "file:.git/config" || origin == "file:.git/config.worktree"
		es = append(es, configEntry{ConfigSetting{Scope: scope, Key: key, Included: !own}, value})
	}
	return es
}
