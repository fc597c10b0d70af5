package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolchainCaches are the cache variables the wiring binds for a project,
// each a fresh host directory here.
var toolchainCaches = []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME"}

// TestToolchains builds, tests and installs small projects with the real
// toolchains inside a sandbox with no network, each cache bound from the
// host. Go and npm are required on CI; pip and cargo are tried when they
// are installed. A toolchain under the home (rustup's cargo, pyenv's
// shims) is hidden with it, as in production: cargo is then tried in a
// sandbox that hides a stand-in home instead, to show it works once the
// wiring exposes it.
func TestToolchains(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	caches := map[string]string{}
	base := t.TempDir()
	for _, k := range toolchainCaches {
		caches[k] = filepath.Join(base, "cache", strings.ToLower(k))
	}
	// The real home is hidden, as in production: a toolchain installed
	// under it (rustup's cargo, pyenv's shims) is not there inside.
	home, err := os.UserHomeDir()
	must(t, err)
	root := t.TempDir()
	seeded := seedGoCache(t, caches["GOCACHE"])
	s := open(t, root, Options{Network: NetworkNone, Home: home, Caches: caches})

	t.Run("go", func(t *testing.T) {
		requireTool(t, s, "go", true)
		write(t, root, map[string]string{
			"gomod/go.mod":       "module tiny\n\ngo 1.21\n",
			"gomod/tiny.go":      "package tiny\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
			"gomod/tiny_test.go": "package tiny\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"2+3\")\n\t}\n}\n",
		})
		out := run(t, s, "cd gomod && go env GOCACHE GOMODCACHE GOPATH && go build ./... && go test -count=1 ./...",
			"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=")
		for _, want := range []string{s.home + "/.cache/bonsai/gocache\n", s.home + "/.cache/bonsai/gomodcache\n", "ok  \ttiny"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
		cacheGrew(t, caches["GOCACHE"], seeded)
	})

	t.Run("npm", func(t *testing.T) {
		requireTool(t, s, "npm", true)
		requireTool(t, s, "node", true)
		write(t, root, map[string]string{
			"npm/lib/package.json": `{"name": "tinylib", "version": "1.0.0", "main": "index.js"}` + "\n",
			"npm/lib/index.js":     "exports.hello = () => 'hello from tinylib';\n",
			"npm/app/package.json": `{"name": "app", "version": "1.0.0", "private": true, "dependencies": {"tinylib": "file:../tinylib-1.0.0.tgz"}}` + "\n",
		})
		// Packing the library and installing the tarball goes through
		// npm's content cache, so the bound cache must take the writes.
		out := run(t, s, `cd npm/lib && npm pack --pack-destination .. --no-update-notifier >/dev/null && cd ../app && `+
			`npm install --offline --no-audit --no-fund --no-update-notifier && npm config get cache && `+
			`node -e 'console.log(require("tinylib").hello())'`)
		for _, want := range []string{s.home + "/.cache/bonsai/npm_config_cache\n", "hello from tinylib\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
		nonEmpty(t, filepath.Join(caches["npm_config_cache"], "_cacache"))
	})

	t.Run("pip", func(t *testing.T) {
		requireTool(t, s, "python3", false)
		if _, code := try(t, s, "python3 -m pip --version"); code != 0 {
			t.Skip("python3 has no pip inside the sandbox")
		}
		// An in-tree build backend keeps the test independent of which
		// setuptools and wheel the machine has (or lacks).
		write(t, root, map[string]string{
			"py/pkg/pyproject.toml":     "[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n",
			"py/pkg/backend.py":         pyBackend,
			"py/pkg/tinypy/__init__.py": "def hello():\n    return 'hello from tinypy'\n",
		})
		// --target keeps the system's Python untouched (and is allowed
		// where the distribution marks it externally managed).
		out := run(t, s, `cd py && python3 -m pip install --no-index --no-build-isolation --disable-pip-version-check --target site ./pkg && `+
			`python3 -m pip cache dir && PYTHONPATH=site python3 -c 'import tinypy; print(tinypy.hello())'`)
		for _, want := range []string{s.home + "/.cache/bonsai/pip_cache_dir\n", "hello from tinypy\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
	})

	t.Run("cargo", func(t *testing.T) {
		cs, env := s, []string(nil)
		if _, code := try(t, s, "command -v cargo"); code != 0 {
			host, err := exec.LookPath("cargo")
			if err != nil || !strings.HasPrefix(host, home+"/") {
				t.Skip("cargo is not installed")
			}
			// rustup's cargo lives in the home the sandbox hides (the
			// wiring must expose it read-only and set RUSTUP_HOME); a
			// sandbox hiding a stand-in home shows cargo itself works.
			t.Logf("cargo (%s) is hidden with the home; trying it with the home visible", host)
			cs = open(t, root, Options{Network: NetworkNone, Caches: caches})
			rustup := os.Getenv("RUSTUP_HOME")
			if rustup == "" {
				rustup = filepath.Join(home, ".rustup")
			}
			env = []string{"RUSTUP_HOME=" + rustup}
		}
		if out, code := try(t, cs, "cargo --version", env...); code != 0 {
			t.Skipf("cargo does not run inside the sandbox: %s", out)
		}
		write(t, root, map[string]string{
			"rs/Cargo.toml":  "[package]\nname = \"tinyrs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"rs/src/main.rs": "fn main() { println!(\"hello from tinyrs\"); }\n",
		})
		out := run(t, cs, "cd rs && cargo build --offline -q && ./target/debug/tinyrs", env...)
		if !strings.Contains(out, "hello from tinyrs\n") {
			t.Errorf("output:\n%s", out)
		}
		nonEmpty(t, caches["CARGO_HOME"])
	})
}

// requireTool skips when name is not on PATH inside the sandbox, or fails
// on CI when required says the toolchain is part of the acceptance.
func requireTool(t *testing.T, s *Executor, name string, required bool) {
	t.Helper()
	if out, code := try(t, s, "command -v "+name); code != 0 {
		msg := name + " is not on PATH inside the sandbox (host: " + hostPath(name) + ") " + out
		if required && os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

func hostPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return "missing"
	}
	return p
}

// try runs script in the sandbox and returns its output and exit code.
func try(t *testing.T, s *Executor, script string, env ...string) (string, int) {
	t.Helper()
	code, out := shell(t, s, script, env...)
	return out, code
}

// run runs script in the sandbox and fails the test unless it exits 0.
func run(t *testing.T, s *Executor, script string, env ...string) string {
	t.Helper()
	out, code := try(t, s, script, env...)
	if code != 0 {
		t.Fatalf("%s: exit %d:\n%s", script, code, out)
	}
	return out
}

// write creates files (paths relative to root, "/"-separated).
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// nonEmpty fails unless the host directory dir has an entry: the proof
// that a toolchain wrote its cache through the bind, not somewhere else.
func nonEmpty(t *testing.T, dir string) {
	t.Helper()
	if ents, err := os.ReadDir(dir); err != nil || len(ents) == 0 {
		t.Errorf("the host cache %s stayed empty (%v)", dir, err)
	}
}

// pyBackend is a PEP 517 build backend that packs tinypy into a wheel
// with the standard library alone.
const pyBackend = `import base64, hashlib, os, zipfile

NAME, VERSION = "tinypy", "1.0.0"
DIST = NAME + "-" + VERSION + ".dist-info"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {
        NAME + "/__init__.py": open(os.path.join(NAME, "__init__.py"), "rb").read(),
        DIST + "/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (NAME, VERSION)).encode(),
        DIST + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
    record.append(DIST + "/RECORD,,")
    wheel = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(DIST + "/RECORD", "\n".join(record) + "\n")
    return wheel
`
