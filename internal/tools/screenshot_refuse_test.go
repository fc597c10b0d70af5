//go:build unix

package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// fakeChromium writes an executable standing in for Chromium that runs
// body with $out set to the --screenshot path, and records each run in
// the file it returns.
func fakeChromium(t *testing.T, body string) (program, ran string) {
	t.Helper()
	dir := t.TempDir()
	program, ran = filepath.Join(dir, "chromium"), filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho run >> " + ran + "\nfor a in \"$@\"; do case $a in --screenshot=*) out=${a#--screenshot=};; esac; done\n" + body + "\n"
	if err := os.WriteFile(program, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return program, ran
}

func wasRun(ran string) bool {
	_, err := os.Stat(ran)
	return err == nil
}

// refused checks that r is an error saying want and that Chromium did not run.
func refused(t *testing.T, r tool.Result, want, ran string) {
	t.Helper()
	if !r.IsError || !strings.Contains(r.Text(), want) {
		t.Errorf("result = %v %q, want a refusal saying %q", r.IsError, r.Text(), want)
	}
	if wasRun(ran) {
		t.Error("Chromium ran for a refused call")
	}
}

// TestScreenshot_RefusesOtherHosts: only http(s) on the loopback is
// opened; everything else is refused before Chromium runs.
func TestScreenshot_RefusesOtherHosts(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"http://example.com/", "https://10.0.0.1/", "http://127.0.0.1.example.com/", "http://localhost.example.com:80/",
		"http://user@127.0.0.1/", "http://127.0.0.1:80@example.com/", `http://127.0.0.1\@example.com/`,
		"http://2130706433/", "http://0.0.0.0:8000/", "http://[fe80::1%25lo]/", "file:///etc/passwd",
		"javascript:alert(1)", "data:text/html,<h1>x</h1>", "ftp://127.0.0.1/", "http://127.0.0.1/ x", "http://127.0.0.1/\x00",
	} {
		t.Run(u, func(t *testing.T) {
			t.Parallel()
			program, ran := fakeChromium(t, "exit 1")
			st, _ := shotTool(t, program, nil)
			args, _ := json.Marshal(map[string]string{"url": u})
			refused(t, call(t, st, string(args)), "is refused", ran)
		})
	}
}

// TestScreenshot_RefusesFilesOutsideOrThroughLinks: a file outside the
// workspace, through a symbolic link (to a file inside or outside, or a
// linked directory), or not a page is refused before Chromium runs.
func TestScreenshot_RefusesFilesOutsideOrThroughLinks(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.html")
	if err := os.WriteFile(outside, []byte("<h1>secret</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"../secret.html", "outside the workspace"},
		{outside, "outside the workspace"},
		{"~/x.html", "not expanded"},
		{"out.html", "outside the workspace"},
		{"in.html", "symbolic link"},
		{"linked/page.html", "symbolic link"},
		{"site/page.txt", ".html"},
		{"site", ".html"},
		{"missing.html", "not found"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			program, ran := fakeChromium(t, "exit 1")
			st, root := shotTool(t, program, map[string]string{"site/page.html": "<h1>page</h1>", "site/page.txt": "x"})
			for link, to := range map[string]string{"out.html": outside, "in.html": "site/page.html", "linked": "site"} {
				if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
			args, _ := json.Marshal(map[string]string{"file": tc.file})
			refused(t, call(t, st, string(args)), tc.want, ran)
		})
	}
}

// TestScreenshot_RefusesHugeViewportsAndBadPaths: the viewport is bounded
// (by the schema and by the tool), the output path must stay in the
// workspace and end in .png, and a read-only run names none.
func TestScreenshot_RefusesHugeViewportsAndBadPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"file":"p.html","width":100000}`, "2560"},
		{`{"file":"p.html","height":100000,"width":800}`, "2560"},
		{`{"file":"p.html","width":10}`, "200"},
		{`{"file":"p.html","timeout":100000}`, "120"},
		{`{"file":"p.html","path":"../out.png"}`, "outside the workspace"},
		{`{"file":"p.html","path":"shot.html"}`, "must end in .png"},
		{`{"url":"http://127.0.0.1:1/","file":"p.html"}`, "not both"},
		{`{"file":"p.html","serve":"python3 -m http.server"}`, "serve goes with url"},
		{`{}`, "Give url"},
	} {
		program, ran := fakeChromium(t, "exit 1")
		st, _ := shotTool(t, program, map[string]string{"p.html": "<p>x</p>"})
		refused(t, call(t, st, tc.args), tc.want, ran)
	}
	program, ran := fakeChromium(t, "exit 1")
	st, _ := shotTool(t, program, map[string]string{"p.html": "<p>x</p>"})
	r := tool.Call(executor.ReadOnlyContext(context.Background()), st, json.RawMessage(`{"file":"p.html","path":"shot.png"}`), nil)
	refused(t, r, "must not write the worktree", ran)
}

// TestScreenshot_ChromiumHangingIsStopped: a Chromium that never ends is
// killed at the call's time bound, with whatever it started.
func TestScreenshot_ChromiumHangingIsStopped(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	program, _ := fakeChromium(t, "sleep 600 & echo $! > "+pidFile+"\nwait")
	st, root := shotTool(t, program, map[string]string{"p.html": "<p>x</p>"})
	r := call(t, st, `{"file":"p.html","timeout":2}`)
	if !r.IsError || !strings.Contains(r.Text(), "timed out after 2 s") {
		t.Fatalf("result = %q, want a time-out", r.Text())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 || !gone(pid) {
		t.Errorf("Chromium's child %d outlived the call", pid)
	}
	noPicture(t, root)
}

// TestScreenshot_PageThatNeverLoads: real Chromium on a server that never
// answers takes the picture at its page-load bound and says so.
func TestScreenshot_PageThatNeverLoads(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // never answered
		}
	}()
	st, _ := shotTool(t, chromium(t), nil)
	r := call(t, st, `{"url":"http://`+l.Addr().String()+`/","timeout":20,"width":300,"height":200}`)
	shotPNG(t, r, 300, 200)
	if !strings.Contains(r.Text(), "had not finished loading") {
		t.Errorf("result = %q, want a note that the page had not loaded", r.Text())
	}
}

// TestScreenshot_OutputNotAPNG: what Chromium wrote is checked as one PNG
// within the bounds; anything else is refused and nothing is saved.
func TestScreenshot_OutputNotAPNG(t *testing.T) {
	t.Parallel()
	small, wide := encodePNG(t, 3, 2), encodePNG(t, 3000, 2)
	pics := t.TempDir()
	for name, data := range map[string][]byte{
		"small.png": small, "wide.png": wide, "html.png": []byte("<html><script>alert(1)</script></html>"),
		"polyglot.png": append(append([]byte(nil), small...), "<script>alert(1)</script>"...),
		"cut.png":      small[:len(small)-4],
		"badcrc.png":   flipByte(small, 20),
	} {
		if err := os.WriteFile(filepath.Join(pics, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ body, want string }{
		{"cp " + pics + "/html.png \"$out\"", "not a PNG (no PNG signature)"},
		{"cp " + pics + "/polyglot.png \"$out\"", "bytes after its IEND chunk"},
		{"cp " + pics + "/cut.png \"$out\"", "not a PNG"},
		{"cp " + pics + "/badcrc.png \"$out\"", "fails its CRC"},
		{"cp " + pics + "/wide.png \"$out\"", "3000×2, over 2560×2560"},
		{"ln -s " + pics + "/small.png \"$out\"", "wrote no picture"},
		{"exit 0", "wrote no picture"},
	} {
		program, _ := fakeChromium(t, tc.body)
		st, root := shotTool(t, program, map[string]string{"p.html": "<p>x</p>"})
		r := call(t, st, `{"file":"p.html"}`)
		if !r.IsError || !strings.Contains(r.Text(), tc.want) {
			t.Errorf("%s: result = %q, want %q", tc.body, r.Text(), tc.want)
		}
		noPicture(t, root)
	}
	// The same small PNG, whole, is taken.
	program, _ := fakeChromium(t, "cp "+pics+"/small.png \"$out\"")
	st, _ := shotTool(t, program, map[string]string{"p.html": "<p>x</p>"})
	shotPNG(t, call(t, st, `{"file":"p.html"}`), 3, 2)
}

// TestScreenshot_ServerProblems: a serve command that ends at once, and a
// URL nobody serves, say what to do.
func TestScreenshot_ServerProblems(t *testing.T) {
	t.Parallel()
	program, ran := fakeChromium(t, "exit 1")
	st, _ := shotTool(t, program, nil)
	port := freePort(t)
	r := call(t, st, `{"url":"http://127.0.0.1:`+port+`/","serve":"echo no server here; exit 3"}`)
	if !r.IsError || !strings.Contains(r.Text(), "serve command ended before anything listened") || !strings.Contains(r.Text(), "no server here") {
		t.Errorf("result = %q", r.Text())
	}
	r = call(t, st, `{"url":"http://localhost:`+port+`/"}`)
	if !r.IsError || !strings.Contains(r.Text(), "Nothing listens on localhost:"+port) || !strings.Contains(r.Text(), "give its command as serve") {
		t.Errorf("result = %q", r.Text())
	}
	if wasRun(ran) {
		t.Error("Chromium ran with no server")
	}
}

// gone waits until process pid has ended (a zombie has), up to a
// failure's deadline.
func gone(pid int) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return syscall.Kill(pid, 0) != nil
		}
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return true
		}
	}
	return false
}

// noPicture checks nothing was saved under .bonsai-tmp.
func noPicture(t *testing.T, root string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(root, ".bonsai-tmp", "*.png"))
	if len(m) > 0 {
		t.Errorf("saved %v", m)
	}
}

func encodePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func flipByte(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0xff
	return c
}

// TestScreenshot_SavesNeverThroughLinks: the picture is not written
// through a symbolic link on the path the model named (a linked file or
// directory), and what the link points to is left as it was.
func TestScreenshot_SavesNeverThroughLinks(t *testing.T) {
	t.Parallel()
	pic := filepath.Join(t.TempDir(), "small.png")
	if err := os.WriteFile(pic, encodePNG(t, 3, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"shot.png", "shots/home.png"} {
		program, _ := fakeChromium(t, "cp "+pic+" \"$out\"")
		st, root := shotTool(t, program, map[string]string{"p.html": "<p>x</p>", "real/keep.png": "kept"})
		if err := os.Symlink("real/keep.png", filepath.Join(root, "shot.png")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("real", filepath.Join(root, "shots")); err != nil {
			t.Fatal(err)
		}
		r := call(t, st, `{"file":"p.html","path":"`+p+`"}`)
		if !r.IsError || !strings.Contains(r.Text(), "is a symbolic link") {
			t.Errorf("path %s: result = %q, want a refusal", p, r.Text())
		}
		if b, _ := os.ReadFile(filepath.Join(root, "real", "keep.png")); string(b) != "kept" {
			t.Errorf("path %s: the link's target was written", p)
		}
		if _, err := os.Stat(filepath.Join(root, "real", "home.png")); err == nil {
			t.Errorf("path %s: saved through the linked directory", p)
		}
	}
}

// TestScreenshot_PageReachesOnlyTheLoopback: a page served on the
// loopback cannot make Chromium fetch from another address of this
// machine, by IP or by name (an image, a redirect): only loopback names
// and addresses resolve.
func TestScreenshot_PageReachesOnlyTheLoopback(t *testing.T) {
	t.Parallel()
	program := chromium(t)
	ip := outerIP(t)
	var hits atomic.Int32
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	outer := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(encodePNG(t, 50, 50))
	})}
	go outer.Serve(l)
	t.Cleanup(func() { outer.Close() })
	_, outerPort, _ := net.SplitHostPort(l.Addr().String())
	page := `<html><body><img src="http://` + ip + `:` + outerPort + `/by-ip.png">` +
		`<img src="http://outer.example:` + outerPort + `/by-name.png">` +
		`<iframe src="http://` + ip + `:` + outerPort + `/frame"></iframe></body></html>`
	st, _ := shotTool(t, program, map[string]string{"site/index.html": page})
	port := freePort(t)
	r := call(t, st, `{"url":"http://127.0.0.1:`+port+`/","serve":"exec python3 -m http.server `+port+` --bind 127.0.0.1 --directory site","width":400,"height":300}`)
	shotPNG(t, r, 400, 300)
	if n := hits.Load(); n != 0 {
		t.Errorf("the page reached %s %d times", l.Addr(), n)
	}
}

// outerIP returns an IPv4 address of this machine that is not the
// loopback; the test skips without one.
func outerIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("no address but the loopback")
	return ""
}
