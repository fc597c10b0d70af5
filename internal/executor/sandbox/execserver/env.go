package execserver

import (
	"strings"
	"time"
)

// Arg is the hidden first argument that makes a program the sandbox's
// proxy bridge, `<program> Arg <socket> -- argv…`, or its persistent
// command server, `<program> Arg ServeArg <socket|-> <limits>`: the
// embedded bonsai-exec program, or the bonsai binary itself, whose main
// hands the arguments after it to Main before doing anything else.
const Arg = "__bonsai-sandbox-bridge"

// ServeArg, after Arg, makes the program the command server.
const ServeArg = "--serve"

// proxyVars are the variables the bridge sets for the command; the
// *_PROXY it does not set are removed.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"}

// noProxy is NO_PROXY's value: the sandbox's own loopback.
const noProxy = "localhost,127.0.0.1,::1"

// commandEnv returns env with the proxy variables pointing at the
// bridge's listener addr (host:port), and ALL_PROXY/FTP_PROXY removed.
func commandEnv(env []string, addr string) []string {
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy",
			"ALL_PROXY", "all_proxy", "FTP_PROXY", "ftp_proxy":
			continue
		}
		out = append(out, kv)
	}
	for _, k := range proxyVars {
		out = append(out, k+"=http://"+addr)
	}
	return append(out, "NO_PROXY="+noProxy, "no_proxy="+noProxy)
}

// PIDDelay holds each PID reply of the command server back. Only tests
// set it (in a test binary that is its own server), to have a command
// kill its server before the host learns that it runs.
var PIDDelay time.Duration
