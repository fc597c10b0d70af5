package netproxy

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// pattern is one parsed allow-list entry.
type pattern struct {
	name     string     // lower-case name without "*." ; empty for an address
	wildcard bool       // "*.name": names strictly below name
	addr     netip.Addr // an IP literal; valid only when name is empty
	port     int        // 0: ports 80 and 443
}

// ParseHost reports whether p is a valid allow-list pattern and, if not,
// what is wrong with it: "host", "*.host", an IPv4 address, an IPv6
// address (in brackets when it has a port), each optionally followed by
// ":port".
func ParseHost(p string) error {
	_, err := parsePattern(p)
	return err
}

func parsePattern(p string) (pattern, error) {
	bad := func(why string) (pattern, error) {
		return pattern{}, fmt.Errorf("allow-list host %q: %s", p, why)
	}
	s := strings.TrimSpace(p)
	if s == "" {
		return bad("empty; write a host name such as proxy.golang.org, *.example.com or 10.0.0.7:8080")
	}
	if strings.Contains(s, "://") || strings.ContainsAny(s, "/?#@") {
		return bad("write a host, not a URL (no scheme, user, path or query)")
	}
	if a, err := netip.ParseAddr(s); err == nil { // a bare IPv6 or IPv4 address
		if a.Zone() != "" {
			return bad("an address with a zone cannot be allowed")
		}
		return pattern{addr: a.Unmap()}, nil
	}
	host, port := s, 0
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	} else if strings.Contains(s, ":") {
		h, ps, err := net.SplitHostPort(s)
		if err != nil {
			return bad("cannot split host and port: " + strings.TrimPrefix(err.Error(), "address "+s+": "))
		}
		n, ok := parsePort(ps)
		if !ok {
			return bad("the port must be a number from 1 to 65535")
		}
		host, port = h, n
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return bad("an address with a zone cannot be allowed")
		}
		return pattern{addr: a.Unmap(), port: port}, nil
	}
	if strings.Contains(s, "[") {
		return bad("brackets are for IPv6 addresses only")
	}
	name, wildcard := strings.CutPrefix(host, "*.")
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if strings.Contains(name, "*") {
		return bad(`a wildcard is only allowed as a leading "*." (as in *.example.com)`)
	}
	if err := checkName(name); err != nil {
		return bad(err.Error())
	}
	if wildcard && !strings.Contains(name, ".") {
		return bad(`"*." must be followed by at least two labels (*.example.com, not *.com)`)
	}
	return pattern{name: name, wildcard: wildcard, port: port}, nil
}

// checkName checks a DNS name: labels of letters, digits, hyphens and
// underscores, 1 to 63 bytes, not starting or ending with a hyphen, 253
// bytes at most.
func checkName(name string) error {
	if name == "" {
		return errors.New("no host name")
	}
	if len(name) > 253 {
		return errors.New("longer than 253 characters")
	}
	for _, l := range strings.Split(name, ".") {
		if l == "" {
			return errors.New("an empty label (two dots in a row, or a leading dot)")
		}
		if len(l) > 63 {
			return errors.New("a label longer than 63 characters")
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return errors.New("a label starts or ends with a hyphen")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("the character %q is not allowed in a host name", c)
			}
		}
	}
	return nil
}

// matches reports whether the request target host:port (host already
// normalised by target) is allowed by p.
func (p pattern) matches(t target) bool {
	if p.port == 0 {
		if t.port != 80 && t.port != 443 {
			return false
		}
	} else if p.port != t.port {
		return false
	}
	if p.name == "" {
		return t.addr.IsValid() && t.addr == p.addr
	}
	if t.addr.IsValid() {
		return false
	}
	if p.wildcard {
		return strings.HasSuffix(t.name, "."+p.name)
	}
	return t.name == p.name
}

// target is a normalised request target: a name or an address, and a port.
type target struct {
	name string     // lower-case, no trailing dot; empty for an address
	addr netip.Addr // valid for an IP literal
	port int
}

// String returns host:port as a client would write it.
func (t target) String() string {
	return net.JoinHostPort(t.host(), strconv.Itoa(t.port))
}

func (t target) host() string {
	if t.addr.IsValid() {
		return t.addr.String()
	}
	return t.name
}

// parseTarget parses a request's "host:port" (the CONNECT target or a
// URL's host with its default port).
func parseTarget(hostport string) (target, error) {
	h, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		return target{}, fmt.Errorf("%q is not host:port", hostport)
	}
	n, ok := parsePort(ps)
	if !ok {
		return target{}, fmt.Errorf("%q has no valid port", hostport)
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return target{}, fmt.Errorf("%q: addresses with a zone are refused", hostport)
		}
		return target{addr: a.Unmap(), port: n}, nil
	}
	name := strings.TrimSuffix(strings.ToLower(h), ".")
	if err := checkName(name); err != nil {
		return target{}, fmt.Errorf("%q: %v", hostport, err)
	}
	return target{name: name, port: n}, nil
}

// parsePort parses a port of decimal digits only, 1 to 65535.
func parsePort(s string) (int, bool) {
	if s == "" || len(s) > 5 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= 65535
}

// list is a parsed allow list.
type list []pattern

func parseList(ps []string) (list, error) {
	l := make(list, 0, len(ps))
	var errs []error
	for _, p := range ps {
		q, err := parsePattern(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l = append(l, q)
	}
	return l, errors.Join(errs...)
}

func (l list) allows(t target) bool {
	for _, p := range l {
		if p.matches(t) {
			return true
		}
	}
	return false
}
