// Package netproxy is the allow-listing HTTP forward proxy behind the
// sandbox's "proxy" network mode. It tunnels CONNECT host:port and
// forwards absolute-form plain HTTP requests, only to hosts its allow
// list names, and reports every connection it refuses.
//
// Patterns (see ParseHost):
//
//	example.com          that name, on ports 80 and 443
//	*.example.com        any name below example.com (not example.com itself), ports 80 and 443
//	example.com:8443     that name on port 8443 only
//	10.0.0.7, [::1]:8080 that address (port rules as above)
//
// A port-less pattern means 80 and 443 because every registry and git
// host of DefaultAllow is served there; anything else must be named with
// its port. Names compare case-insensitively, without a trailing dot.
//
// Against DNS rebinding, a name is resolved by the proxy, every address it
// resolves to is checked, and the proxy dials the addresses it checked,
// never the name again: a name that resolves to a loopback, link-local,
// private, shared (100.64.0.0/10), multicast or unspecified address is
// refused even though it is on the list. Only an IP-literal pattern
// reaches such an address, and only that address.
//
// Forward adds, at run time, a name of the reserved .invalid domain and a
// port that the proxy connects to a given address, a loopback one
// included: how a server of the host (an engine run's model gateway) is
// offered to sandboxed commands. It matches that name and port exactly
// and is removed when its caller is done; every other internal address
// stays refused.
//
// The proxy uses no proxy itself (it ignores HTTP_PROXY and friends) and
// uses only the standard library.
package netproxy
