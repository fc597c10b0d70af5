package agentexec

import (
	"slices"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// TestNetworkFor: none and all map through; proxy, the default, allows
// the default registries, the repository's host, config.json's hosts and
// the project's, once each.
func TestNetworkFor(t *testing.T) {
	t.Parallel()
	p := board.Project{Repo: "https://git.example.com/acme/app.git", Agent: board.AgentSettings{AllowHosts: []string{"registry.internal", "github.com", "git.example.com"}}}
	mode, allow := NetworkFor(p, []string{"proxy.golang.org", "mirror.example.org"})
	want := append(netproxy.DefaultAllow(), "git.example.com", "mirror.example.org", "registry.internal")
	if mode != NetworkProxy || !slices.Equal(allow, want) {
		t.Errorf("proxy: %s %v, want allow %v", mode, allow, want)
	}
	p.Repo = "/srv/repo"
	if _, allow := NetworkFor(p, nil); slices.Contains(allow, "") || len(allow) != len(netproxy.DefaultAllow())+2 {
		t.Errorf("a local repository: %v", allow)
	}
	p.Agent.Network = board.NetworkAll
	if mode, allow := NetworkFor(p, nil); mode != NetworkAll || allow != nil {
		t.Errorf("all: %s %v", mode, allow)
	}
	p.Agent.Network = board.NetworkNone
	if mode, allow := NetworkFor(p, nil); mode != NetworkNone || allow != nil {
		t.Errorf("none: %s %v", mode, allow)
	}
}
