package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"path"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// maxURLBytes bounds the URL of a screenshot.
const maxURLBytes = 2048

// pageExts are the files the screenshot tool opens from the workspace.
var pageExts = map[string]bool{".html": true, ".htm": true, ".xhtml": true, ".svg": true}

// shotTarget is what Chromium opens.
type shotTarget struct {
	// arg is Chromium's argument: the URL as Go wrote it back, or the
	// file's workspace-relative path (the script makes it absolute).
	arg  string
	file bool
	// host and port are where the page is served (a URL only).
	host, port string
	// shown names the target to the model.
	shown string
}

// target checks the call's URL or file; a refusal is the problem's text.
func (t *screenshotTool) target(ctx context.Context, a screenshotArgs) (shotTarget, string) {
	switch {
	case a.URL != "" && a.File != "":
		return shotTarget{}, "Give url or file, not both."
	case a.URL == "" && a.File == "":
		return shotTarget{}, "Give url (a page served on 127.0.0.1, localhost or [::1]) or file (an HTML file in the workspace)."
	case a.File != "" && a.Serve != "":
		return shotTarget{}, "serve goes with url: a file is opened directly."
	case a.URL != "":
		return loopbackURL(a.URL)
	}
	return t.pageFile(ctx, a.File)
}

// loopbackURL accepts an http or https URL whose host is the loopback:
// localhost, 127.0.0.0/8 or ::1, with no user information, and returns it
// as Go writes it back, so that Chromium reads the host Go checked.
func loopbackURL(raw string) (shotTarget, string) {
	refuse := func(why string) (shotTarget, string) {
		return shotTarget{}, fmt.Sprintf("URL %q is refused: %s. The screenshot tool opens pages served inside your own sandbox only: http://127.0.0.1:PORT/…, http://localhost:PORT/… or http://[::1]:PORT/….", clipText(raw, 200), why)
	}
	if len(raw) > maxURLBytes {
		return refuse(fmt.Sprintf("it is over %d bytes", maxURLBytes))
	}
	if strings.ContainsAny(raw, "\\") || strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return refuse("it holds a backslash, a space or a control character")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return refuse("it does not parse")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return refuse("only http and https are opened")
	}
	if u.User != nil || u.Opaque != "" {
		return refuse("it names a user or is not a hierarchical URL")
	}
	host := strings.ToLower(u.Hostname())
	if !loopbackHost(host) {
		return refuse(fmt.Sprintf("host %q is not this machine's loopback", host))
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	s := u.String()
	return shotTarget{arg: s, host: host, port: port, shown: s}, ""
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// dialHost is host as bash's /dev/tcp takes it: without brackets;
// localhost is resolved as the sandbox's /etc/hosts says, as Chromium
// resolves it.
func (s shotTarget) dialHost() string { return strings.Trim(s.host, "[]") }

// hostPort is host:port for messages.
func (s shotTarget) hostPort() string { return net.JoinHostPort(s.dialHost(), s.port) }

// pageFile accepts a regular HTML or SVG file inside the workspace, no
// element of whose path is a symbolic link.
func (t *screenshotTool) pageFile(ctx context.Context, p string) (shotTarget, string) {
	ex := t.e.ex
	name := shown(ex, p)
	rel, err := ex.Rel(p)
	if err != nil {
		return shotTarget{}, fsError(ex, p, "File", err).Text()
	}
	if rel == "." || strings.IndexFunc(rel, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return shotTarget{}, fmt.Sprintf("file %s is refused: give an HTML file's path inside the workspace.", name)
	}
	if !pageExts[strings.ToLower(path.Ext(rel))] {
		return shotTarget{}, fmt.Sprintf("file %s is refused: the screenshot tool opens .html, .htm, .xhtml and .svg files.", name)
	}
	st, found, link, err := walkNoLinks(ctx, ex, rel)
	switch {
	case err == nil && !found:
		err = fs.ErrNotExist
	case err == nil && link != "":
		return shotTarget{}, fmt.Sprintf("file %s is refused: %s is a symbolic link; open the file itself.", name, link)
	case err == nil && (st.Dir || !st.Mode.IsRegular()):
		return shotTarget{}, fmt.Sprintf("file %s is refused: not a regular file.", name)
	}
	if err != nil {
		return shotTarget{}, fsError(ex, p, "File", err).Text()
	}
	return shotTarget{arg: rel, file: true, shown: rel}, ""
}

// walkNoLinks stats each element of rel in turn: it returns the first
// that is a symbolic link, else the last element's entry. found is false
// when an element does not exist (the walk stops there).
func walkNoLinks(ctx context.Context, ex executor.Executor, rel string) (last executor.Entry, found bool, link string, err error) {
	parts := strings.Split(rel, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		st, err := ex.Stat(ctx, sub)
		if errors.Is(err, fs.ErrNotExist) {
			return executor.Entry{}, false, "", nil
		}
		if err != nil {
			return executor.Entry{}, false, "", err
		}
		if st.Symlink {
			return st, true, sub, nil
		}
		last = st
	}
	return last, true, "", nil
}

// clipText cuts s to n bytes for a message.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
