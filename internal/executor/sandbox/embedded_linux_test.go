package sandbox

import (
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execbin"
)

// TestEmbeddedServer: by default the command server is the embedded
// bonsai-exec, run from its sealed memfd, not the bonsai (here: test)
// binary: its executable is execbin's program, byte for byte as long,
// and neither it nor bwrap's init still holds the memfd, so no command
// can open it again. It logs the server's resident memory.
func TestEmbeddedServer(t *testing.T) {
	requireBwrap(t)
	b, err := execbin.Binary()
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		t.Skip("no bonsai-exec is embedded for this architecture; the bonsai binary serves")
	}
	for _, net := range []Network{NetworkNone, NetworkProxy, NetworkAll} {
		t.Run(string(net), func(t *testing.T) {
			s := open(t, t.TempDir(), Options{Network: net})
			code, out := shell(t, s, "readlink /proc/$PPID/exe; stat -L -c %s /proc/$PPID/exe; "+
				"ls -l /proc/$PPID/fd/ /proc/1/fd/ 2>/dev/null | grep -c memfd; grep VmRSS /proc/$PPID/status")
			lines := strings.Split(out, "\n")
			if code != 0 || len(lines) < 4 {
				t.Fatalf("exit %d: %q", code, out)
			}
			if lines[0] != "/memfd:bonsai-exec (deleted)" || lines[1] != strconv.Itoa(len(b)) {
				t.Errorf("the server runs %s, %s bytes, not the embedded bonsai-exec (%d bytes)", lines[0], lines[1], len(b))
			}
			if lines[2] != "0" {
				t.Errorf("%s descriptors of the server or bwrap's init hold the memfd", lines[2])
			}
			t.Logf("server: %s", lines[3])
		})
	}
}

// TestEmbeddedServer_Sealed: the memfd every sandbox runs the server
// from cannot be written, grown or shrunk, even by the runtime.
func TestEmbeddedServer_Sealed(t *testing.T) {
	f, err := embeddedServer()
	if f == nil {
		t.Skipf("no embedded server here: %v", err)
	}
	if _, err := f.WriteAt([]byte{0}, 0); err == nil {
		t.Error("the memfd took a write")
	}
	if err := f.Truncate(1); err == nil {
		t.Error("the memfd was shrunk")
	}
}
