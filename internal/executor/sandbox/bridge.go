package sandbox

import "strings"

// BridgeArg is the hidden first argument that makes the bonsai binary
// the sandbox's proxy bridge, `bonsai <BridgeArg> <socket> -- argv…`, or
// its persistent command server, `bonsai <BridgeArg> --serve <socket|->`.
// The program's main hands the arguments after it to BridgeMain before
// doing anything else.
const BridgeArg = "__bonsai-sandbox-bridge"

// serveArg, after BridgeArg, makes the binary the command server.
const serveArg = "--serve"

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
