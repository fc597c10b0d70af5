package netproxy

import (
	"fmt"
	"net/url"
	"strings"
)

// defaultAllow is the allow list of DefaultAllow, by toolchain. Each
// entry is what that toolchain's package manager contacts to resolve and
// download packages with its stock configuration; mirrors and private
// registries must be added per project.
var defaultAllow = []string{
	// Go: the module proxy (modules and toolchains) and the checksum database.
	"proxy.golang.org", "sum.golang.org",
	// npm and yarn (classic and berry).
	"registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com",
	// Python: the index and the file host it redirects downloads to.
	"pypi.org", "files.pythonhosted.org",
	// Rust: the sparse index, the download host and crates.io's API.
	"crates.io", "index.crates.io", "static.crates.io",
	// Ruby.
	"rubygems.org", "index.rubygems.org",
	// Java: Maven Central under both of its names.
	"repo.maven.apache.org", "repo1.maven.org",
	// git over HTTPS and the archives and release files package managers
	// fetch from the two big forges.
	"github.com", "codeload.github.com", "objects.githubusercontent.com",
	"gitlab.com",
}

// DefaultAllow returns a new copy of the default allow list: the public
// registries of the common toolchains (Go, npm, yarn, PyPI, crates.io,
// RubyGems, Maven Central) and GitHub and GitLab for git over HTTPS. A
// project's own git remote host is added by the caller (see RemoteHost).
func DefaultAllow() []string {
	return append([]string(nil), defaultAllow...)
}

// RemoteHost returns the host of a git remote URL as an allow-list
// pattern: "https://host[:port]/…" and "http://…" give the host (with a
// port other than the scheme's default), "ssh://user@host/…" and
// "user@host:path" give the host, which is only useful if git reaches it
// over HTTPS, since the proxy carries HTTP and HTTPS only. A local path
// gives an error.
func RemoteHost(remote string) (string, error) {
	if i := strings.Index(remote, "://"); i > 0 {
		u, err := url.Parse(remote)
		if err != nil {
			return "", fmt.Errorf("remote %q: %v", remote, err)
		}
		h := u.Hostname()
		if h == "" {
			return "", fmt.Errorf("remote %q has no host", remote)
		}
		p := u.Port()
		if p == "" || (u.Scheme == "https" && p == "443") || (u.Scheme == "http" && p == "80") || u.Scheme == "ssh" || u.Scheme == "git" {
			p = ""
		}
		pat := h
		if strings.Contains(h, ":") {
			pat = "[" + h + "]"
		}
		if p != "" {
			pat += ":" + p
		}
		return pat, ParseHost(pat)
	}
	// scp-like: [user@]host:path, with no slash before the colon.
	// A drive letter (C:\repo) is a local path, as git reads it.
	colon := strings.IndexByte(remote, ':')
	if colon > 1 && !strings.ContainsAny(remote[:colon], "/\\") {
		h := remote[:colon]
		if at := strings.LastIndexByte(h, '@'); at >= 0 {
			h = h[at+1:]
		}
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if h == "" {
			return "", fmt.Errorf("remote %q has no host", remote)
		}
		return h, ParseHost(h)
	}
	return "", fmt.Errorf("remote %q is a local path, not a host", remote)
}
