package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostSocketsHidden: a host daemon's unix socket under /run (dbus,
// docker, the user's agents live there) is visible to a command on the
// host and hidden from a sandboxed one without the host's network. A
// read-only bind does not stop a client from connecting to a socket, so
// hiding it is what keeps it out of reach.
func TestHostSocketsHidden(t *testing.T) {
	requireBwrap(t)
	dir, err := os.MkdirTemp("/run", "bonsai-sandbox-test-")
	if err != nil {
		if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
			t.Fatal(err)
		}
		t.Skipf("cannot create a socket under /run here: %v", err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "daemon.sock")
	ln, err := net.Listen("unix", sock)
	must(t, err)
	defer ln.Close()
	script := "test -S " + sock + " && echo VISIBLE || echo hidden"
	root := t.TempDir()
	if _, out := shell(t, onHost(t, root), script); !strings.Contains(out, "VISIBLE") {
		t.Fatalf("on the host: %q", out)
	}
	for _, n := range []Network{NetworkNone, NetworkProxy} {
		if _, out := shell(t, open(t, root, Options{Network: n}), script); strings.Contains(out, "VISIBLE") {
			t.Errorf("%s: the host's socket is visible: %q", n, out)
		}
	}
}
