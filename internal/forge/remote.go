package forge

import (
	"fmt"
	"net/url"
	"strings"
)

// Repo is a repository on a forge.
type Repo struct {
	Kind Kind
	// Host is the web host of the remote ("github.com",
	// "git.example.com:8443").
	Host string
	// API is the REST API's base URL, without a trailing slash:
	// https://api.github.com, https://ghe.example.com/api/v3,
	// https://gitlab.example.com/api/v4, https://gitea.example.com/api/v1.
	API string
	// Owner is the user, organisation or (GitLab) group path; Name the
	// repository.
	Owner string
	Name  string
}

// Path is owner/name.
func (r Repo) Path() string { return r.Owner + "/" + r.Name }

// APIHost is the host the token is sent to.
func (r Repo) APIHost() string {
	u, err := url.Parse(r.API)
	if err != nil {
		return ""
	}
	return u.Host
}

// Host is a forge host of config.json's forge.hosts: which forge runs
// there and, when not the usual place, its API base URL.
type Host struct {
	Kind Kind
	API  string // "" for the kind's usual path on the host
}

// known are the public forges recognised without configuration.
var known = map[string]Host{
	"github.com":   {Kind: GitHub, API: "https://api.github.com"},
	"gitlab.com":   {Kind: GitLab, API: "https://gitlab.com/api/v4"},
	"codeberg.org": {Kind: Gitea, API: "https://codeberg.org/api/v1"},
	"gitea.com":    {Kind: Gitea, API: "https://gitea.com/api/v1"},
}

// DefaultAPI is the API base URL of a self-hosted forge of kind k at
// scheme://host.
func DefaultAPI(k Kind, scheme, host string) string {
	switch k {
	case GitHub:
		return scheme + "://" + host + "/api/v3"
	case GitLab:
		return scheme + "://" + host + "/api/v4"
	}
	return scheme + "://" + host + "/api/v1"
}

// NotForgeError is Detect's error for a remote that is not on a known
// forge.
type NotForgeError struct {
	Remote string
	Host   string
}

func (e *NotForgeError) Error() string {
	if e.Host == "" {
		return fmt.Sprintf("the remote %q is not a forge URL (https://host/owner/repo or git@host:owner/repo)", e.Remote)
	}
	return fmt.Sprintf("%s is not a known forge; for a self-hosted one, run `bonsai config set forge.hosts.%s github|gitlab|gitea` (and forge.hosts.%s.api URL when its API is not at the usual path)",
		e.Host, e.Host, e.Host)
}

// Detect returns the forge repository of a git remote URL: https, http
// and ssh URLs and the scp-like git@host:owner/repo form. hosts are the
// configured self-hosted forges by host (with port, when the remote
// names one); they win over the public forges Detect knows.
func Detect(remote string, hosts map[string]Host) (Repo, error) {
	scheme, host, path, ok := splitRemote(strings.TrimSpace(remote))
	if !ok {
		return Repo{}, &NotForgeError{Remote: remote}
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	i := strings.LastIndex(path, "/")
	if i <= 0 || i == len(path)-1 {
		return Repo{}, &NotForgeError{Remote: remote}
	}
	r := Repo{Host: host, Owner: path[:i], Name: path[i+1:]}
	h, found := lookupHost(hosts, host)
	if !found {
		return Repo{}, &NotForgeError{Remote: remote, Host: host}
	}
	r.Kind, r.API = h.Kind, strings.TrimSuffix(h.API, "/")
	if r.API == "" {
		if scheme != "http" {
			scheme = "https"
		}
		r.API = DefaultAPI(h.Kind, scheme, host)
	}
	if r.Kind != GitLab && strings.Contains(r.Owner, "/") {
		return Repo{}, fmt.Errorf("the remote %q has a nested path, which only GitLab groups have; set forge.hosts.%s to gitlab if it is a GitLab", remote, host)
	}
	return r, nil
}

// lookupHost finds host in the configured hosts (with or without its
// port), then in the public forges.
func lookupHost(hosts map[string]Host, host string) (Host, bool) {
	if h, ok := hosts[host]; ok {
		return h, true
	}
	bare := host
	if i := strings.LastIndex(host, ":"); i > 0 && !strings.Contains(host[i:], "]") {
		bare = host[:i]
	}
	if h, ok := hosts[bare]; ok {
		return h, true
	}
	h, ok := known[strings.ToLower(bare)]
	return h, ok
}

// splitRemote returns the scheme, host and path of a remote URL. An ssh
// URL's port is dropped: the API is served over https on the host.
func splitRemote(remote string) (scheme, host, path string, ok bool) {
	if strings.Contains(remote, "://") {
		u, err := url.Parse(remote)
		if err != nil || u.Host == "" {
			return "", "", "", false
		}
		switch u.Scheme {
		case "https", "http":
			return u.Scheme, u.Host, u.Path, true
		case "ssh", "git+ssh", "git":
			return "https", u.Hostname(), u.Path, true
		}
		return "", "", "", false
	}
	// git@host:owner/repo.git
	at := strings.Index(remote, "@")
	colon := strings.Index(remote, ":")
	if colon <= at+1 || strings.ContainsAny(remote[:colon], "/\\") {
		return "", "", "", false
	}
	return "https", remote[at+1 : colon], remote[colon+1:], true
}
