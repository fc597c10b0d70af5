package tools_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// chromium returns the Chromium the tests run: skipped without one, failed
// in CI, which installs it.
func chromium(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the screenshot tool runs Chromium on Linux only")
	}
	p := tools.FindChromium(nil)
	if p == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs Chromium (apt-get install -y chromium); FindChromium found none")
		}
		t.Skip("no Chromium installed (apt-get install chromium)")
	}
	return p
}

// shotTool returns the screenshot tool working in a new workspace through
// the local executor, with program as its Chromium.
func shotTool(t *testing.T, program string, files map[string]string) (tool.Tool, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, files)
	ex, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	st := tools.Lookup(tools.New(ex, tools.Options{Chromium: program}), "screenshot")
	if st == nil {
		t.Fatal("no screenshot tool with Options.Chromium set")
	}
	return st, root
}

func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	return tool.Call(context.Background(), tl, json.RawMessage(args), nil)
}

// shotPNG checks a result carries a PNG image part of the given size and
// returns its bytes.
func shotPNG(t *testing.T, r tool.Result, width, height int) []byte {
	t.Helper()
	if r.IsError {
		t.Fatalf("screenshot failed: %s", r.Text())
	}
	for _, p := range r.Content {
		if p.Type != llm.PartImage {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(p.Data)
		if err != nil || p.MimeType != "image/png" {
			t.Fatalf("image part %s: %v", p.MimeType, err)
		}
		img, err := png.Decode(strings.NewReader(string(data)))
		if err != nil {
			t.Fatalf("the picture does not decode: %v", err)
		}
		if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
			t.Errorf("picture is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
		}
		return data
	}
	t.Fatalf("no image part: %s", r.Text())
	return nil
}

// TestScreenshot_FileInTheWorkspace pictures an HTML file at a viewport
// and saves it under .bonsai-tmp, which git ignores; the picture is red
// where the page is.
func TestScreenshot_FileInTheWorkspace(t *testing.T) {
	t.Parallel()
	st, root := shotTool(t, chromium(t), map[string]string{
		"site/index.html":   `<html><body style="margin:0;background:#d00"><h1>Hi</h1></body></html>`,
		".git/info/exclude": "",
	})
	r := call(t, st, `{"file":"site/index.html","width":640,"height":360}`)
	data := shotPNG(t, r, 640, 360)
	d := r.Details.(tools.ScreenshotDetails)
	if !strings.HasPrefix(d.Path, ".bonsai-tmp/screenshot-") || !strings.Contains(r.Text(), d.Path) {
		t.Fatalf("saved to %q; result %q", d.Path, r.Text())
	}
	saved, err := os.ReadFile(filepath.Join(root, d.Path))
	if err != nil || string(saved) != string(data) {
		t.Fatalf("the saved file is not the picture: %v", err)
	}
	img, _ := png.Decode(strings.NewReader(string(data)))
	if r, g, b, _ := img.At(600, 300).RGBA(); r>>8 < 0xc0 || g>>8 > 0x20 || b>>8 > 0x20 {
		t.Errorf("pixel (600,300) = %x %x %x, want the page's red", r>>8, g>>8, b>>8)
	}
	if ig, err := os.ReadFile(filepath.Join(root, ".bonsai-tmp", ".gitignore")); err != nil || string(ig) != "*\n" {
		t.Errorf(".bonsai-tmp/.gitignore = %q, %v", ig, err)
	}
}

// TestScreenshot_ServeCommand: the serve command runs in the background
// for the call, the tool waits for its port, and the picture is saved at
// the path the model named.
func TestScreenshot_ServeCommand(t *testing.T) {
	t.Parallel()
	st, root := shotTool(t, chromium(t), map[string]string{"index.html": `<h1 style="color:blue">Served</h1>`})
	port := freePort(t)
	r := call(t, st, `{"url":"http://127.0.0.1:`+port+`/","serve":"exec python3 -m http.server `+port+` --bind 127.0.0.1","width":400,"height":300,"path":"shots/home.png"}`)
	shotPNG(t, r, 400, 300)
	if _, err := os.Stat(filepath.Join(root, "shots", "home.png")); err != nil {
		t.Fatal(err)
	}
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// TestScreenshot_OfferedOnlyWithChromium: without a Chromium the tool set
// has no screenshot tool; FindChromium takes an absolute program on PATH
// outside the user's home (which the sandbox hides), and none elsewhere.
func TestScreenshot_OfferedOnlyWithChromium(t *testing.T) {
	t.Parallel()
	if tools.Lookup(tools.New(nil, tools.Options{}), "screenshot") != nil {
		t.Error("a screenshot tool without Chromium")
	}
	home, _ := os.UserHomeDir()
	for _, tc := range []struct {
		found map[string]string
		want  string
	}{
		{map[string]string{}, ""},
		{map[string]string{"chromium": "/usr/bin/chromium"}, "/usr/bin/chromium"},
		{map[string]string{"chromium-browser": "/usr/local/bin/chromium-browser"}, "/usr/local/bin/chromium-browser"},
		{map[string]string{"chromium": "bin/chromium"}, ""},
		{map[string]string{"chromium": filepath.Join(home, "bin", "chromium")}, ""},
	} {
		look := func(name string) (string, error) {
			if p, ok := tc.found[name]; ok {
				return p, nil
			}
			return "", os.ErrNotExist
		}
		if runtime.GOOS != "linux" {
			tc.want = ""
		}
		if got := tools.FindChromium(look); got != tc.want {
			t.Errorf("FindChromium with %v = %q, want %q", tc.found, got, tc.want)
		}
	}
}
