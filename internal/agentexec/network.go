package agentexec

import (
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// NetworkFor returns the network mode of project p's sandbox and, in the
// proxy mode, the hosts its commands may reach: netproxy.DefaultAllow
// (the public registries, GitHub, GitLab), the host of the project's
// repository when it is a URL, configHosts (config.json's
// network.allowHosts) and the project's own allowed hosts, without
// repeats. The project's mode maps one to one: proxy (the default), none
// or all; the other modes allow nothing.
func NetworkFor(p board.Project, configHosts []string) (Network, []string) {
	switch p.Agent.Network {
	case board.NetworkAll:
		return NetworkAll, nil
	case board.NetworkNone:
		return NetworkNone, nil
	}
	var allow []string
	seen := map[string]bool{}
	add := func(h string) {
		if h != "" && !seen[h] {
			seen[h] = true
			allow = append(allow, h)
		}
	}
	for _, h := range netproxy.DefaultAllow() {
		add(h)
	}
	if h, err := netproxy.RemoteHost(p.Repo); err == nil {
		add(h) // a local path has no host
	}
	for _, h := range configHosts {
		add(h)
	}
	for _, h := range p.Agent.AllowHosts {
		add(h)
	}
	return NetworkProxy, allow
}
