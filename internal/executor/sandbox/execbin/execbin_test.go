package execbin

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCommittedBuildsAreCurrent rebuilds bonsai-exec from source, as `go
// generate` does, and fails when a committed build is not what the
// source builds to. A build made by another Go release differs for that
// reason alone; then the test says so and skips.
func TestCommittedBuildsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bonsai-exec twice")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build bonsai-exec with")
	}
	dir := t.TempDir()
	if out, err := exec.Command(goBin, "run", "gen.go", "-o", dir).CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	v, err := exec.Command(goBin, "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	toolchain := strings.TrimSpace(string(v))
	for _, arch := range []string{"amd64", "arm64"} {
		name := "bonsai-exec-linux-" + arch + ".gz"
		committed, fresh := read(t, name), read(t, filepath.Join(dir, name))
		if bytes.Equal(committed, fresh) {
			continue
		}
		if info, err := buildinfo.Read(bytes.NewReader(committed)); err == nil && info.GoVersion != toolchain {
			t.Skipf("%s was built by %s, and this toolchain is %s: run go generate ./internal/executor/sandbox/execbin when moving to it", name, info.GoVersion, toolchain)
		}
		t.Errorf("%s is stale: it is not what execserver builds to now; run go generate ./internal/executor/sandbox/execbin and commit it", name)
	}
}

// read returns the unpacked program of the gzipped file path.
func read(t *testing.T, path string) []byte {
	t.Helper()
	gz, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := unpack(gz)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBinary_ThisArchitecture: Binary is the build for the running
// architecture, where there is one, and nil elsewhere.
func TestBinary_ThisArchitecture(t *testing.T) {
	b, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		if b != nil {
			t.Fatalf("a bonsai-exec embedded for %s/%s", runtime.GOOS, runtime.GOARCH)
		}
		return
	}
	info, err := buildinfo.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if info.Path != "github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver/bonsai-exec" ||
		settings["GOOS"] != "linux" || settings["GOARCH"] != runtime.GOARCH || settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		t.Fatalf("the embedded program is %s with %v", info.Path, settings)
	}
}
