package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// maxShotBytes bounds the PNG read back from the sandbox: 2560×2560
// pixels of noise at 4 bytes a pixel fit in it.
const maxShotBytes = 32 << 20

// shotScript runs inside the executor (the sandbox) with bash: it starts
// the serve command in the background and waits for its port, runs
// Chromium headless with its home, profile, config and cache in a new
// temporary directory, and copies the picture to standard output, which
// carries nothing else. Its exit codes from 70 up name what went wrong
// (shotFailure).
const shotScript = `set -u
exec 3>&1 1>&2
chromium=$1 target=$2 isfile=$3 width=$4 height=$5 loadms=$6 serve=$7 host=$8 port=$9
command -v "$chromium" >/dev/null 2>&1 || exit 71
d=$(mktemp -d "${TMPDIR:-/tmp}/bonsai-screenshot.XXXXXX") || exit 70
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$d"' EXIT
up() { (exec 9<>"/dev/tcp/$host/$port") 2>/dev/null; }
if [ "$isfile" = 1 ]; then
	target=$PWD/$target
elif [ -n "$serve" ]; then
	bash -c "$serve" </dev/null &
	srv=$!
	until up; do
		kill -0 "$srv" 2>/dev/null || exit 72
		sleep 0.1
	done
elif ! up; then
	exit 73
fi
mkdir "$d/home" || exit 70
HOME="$d/home" XDG_CONFIG_HOME="$d/config" XDG_CACHE_HOME="$d/cache" XDG_DATA_HOME="$d/data" DBUS_SESSION_BUS_ADDRESS=disabled: \
"$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
	--no-default-browser-check --disable-extensions --disable-sync --disable-background-networking \
	--disable-component-update --no-proxy-server '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.*, EXCLUDE ::1' \
	--user-data-dir="$d/profile" --crash-dumps-dir="$d/crash" --hide-scrollbars \
	--force-device-scale-factor=1 --window-size="$width,$height" --timeout="$loadms" \
	--screenshot="$d/shot.png" -- "$target" </dev/null
rc=$?
if [ -L "$d/shot.png" ] || [ ! -f "$d/shot.png" ]; then
	echo "chromium exited with code $rc"
	exit 74
fi
cat "$d/shot.png" >&3
`

// shot is a picture taken and checked.
type shot struct {
	png           []byte
	width, height int
	loadTimedOut  bool
}

// take runs the script through the executor within timeout and checks
// what it printed is one PNG within the bounds.
func (t *screenshotTool) take(ctx context.Context, tg shotTarget, a screenshotArgs, timeout time.Duration) (shot, *tool.Result) {
	isFile := "0"
	if tg.file {
		isFile = "1"
	}
	load := max(timeout/2, time.Second)
	argv := []string{"bash", "-c", shotScript, "bonsai-screenshot", t.chromium, tg.arg, isFile,
		strconv.Itoa(a.Width), strconv.Itoa(a.Height), strconv.FormatInt(load.Milliseconds(), 10), a.Serve, tg.dialHost(), tg.port}
	out := &capped{max: maxShotBytes}
	errs := &stderrTail{max: 4096}
	x, err := t.e.ex.Exec(ctx, argv, executor.RunOptions{Output: out, Stderr: errs, Timeout: timeout, ReadOnly: executor.IsReadOnly(ctx)})
	if err != nil {
		r := errorResult("screenshot: %v", err)
		if errors.Is(err, executor.ErrCommandNotFound) {
			r = errorResult("screenshot: bash is not on PATH where commands run; the tool needs it.")
		}
		return shot{}, &r
	}
	stderr := errs.text()
	if h, ok := t.e.ex.(pathHider); ok {
		stderr = h.HidePaths(stderr)
	}
	if r := shotFailure(x, tg, a, timeout, stderr); r != nil {
		return shot{}, r
	}
	if out.over {
		r := errorResult("Chromium's picture is over %s; it was not kept. Take a smaller viewport.", byteSize(maxShotBytes))
		return shot{}, &r
	}
	w, h, err := checkPNG(out.buf.Bytes())
	if err != nil {
		r := errorResult("Chromium's output is not a PNG (%v); nothing was saved.", err)
		return shot{}, &r
	}
	if w > maxViewport || h > maxViewport {
		r := errorResult("Chromium's picture is %d×%d, over %d×%d; nothing was saved.", w, h, maxViewport, maxViewport)
		return shot{}, &r
	}
	return shot{png: out.buf.Bytes(), width: w, height: h, loadTimedOut: strings.Contains(stderr, "Page load timed out")}, nil
}

// shotFailure turns how the script ended into the model's error, nil
// when it printed a picture.
func shotFailure(x executor.Exit, tg shotTarget, a screenshotArgs, timeout time.Duration, stderr string) *tool.Result {
	say := func(format string, args ...any) *tool.Result {
		msg := fmt.Sprintf(format, args...)
		if s := chromiumNoise(stderr); s != "" {
			msg += "\n\nOutput:\n" + s
		}
		r := errorResult("%s", msg)
		return &r
	}
	switch {
	case x.TimedOut:
		return say("Screenshot of %s timed out after %s s: Chromium (or the serve command's server) did not finish; it was stopped. Check that the page loads, or give a longer timeout.", tg.shown, secs(timeout))
	case x.Canceled:
		return say("Screenshot aborted.")
	case x.Code == 0:
		return nil
	case x.Code == 71:
		return say("Chromium is not installed where commands run: install the chromium package (apt-get install chromium).")
	case x.Code == 72:
		return say("The serve command ended before anything listened on %s: `%s`.", tg.hostPort(), a.Serve)
	case x.Code == 73:
		return say("Nothing listens on %s. A server started by an earlier bash call ended with that call: give its command as serve, for example \"python3 -m http.server %s --bind 127.0.0.1\".", tg.hostPort(), tg.port)
	case x.Code == 74:
		return say("Chromium wrote no picture of %s.", tg.shown)
	case x.Code == 70:
		return say("screenshot: cannot make a temporary directory.")
	}
	msg := fmt.Sprintf("Screenshot failed: exit code %d.", x.Code)
	if x.Limit != "" {
		msg += " " + x.Limit
	}
	return say("%s", msg)
}

// chromiumNoise is the end of the script's standard error without
// Chromium's lines about D-Bus, which has none in a sandbox.
func chromiumNoise(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" && !strings.Contains(l, "dbus") && !strings.Contains(l, "[: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// save writes the picture into the workspace: at the path the model
// named, else under the ignored temporary directory; it returns the
// workspace-relative path.
func (t *screenshotTool) save(ctx context.Context, p string, png []byte) (string, *tool.Result) {
	ex := t.e.ex
	ctx = context.WithoutCancel(ctx)
	if p == "" {
		dir, err := t.e.prepareTmp(ctx)
		if err == nil {
			p = dir + "/screenshot-" + t.e.opts.NewID() + ".png"
			err = t.e.createFile(ctx, p, png)
		}
		if err != nil {
			r := fsError(ex, p, "Directory", err)
			return "", &r
		}
		return p, nil
	}
	rel, err := ex.Rel(p)
	if err != nil {
		r := fsError(ex, p, "File", err)
		return "", &r
	}
	if strings.HasPrefix(rel, tmpDir+"/") {
		// Its .gitignore keeps the picture out of the work.
		if _, err := t.e.prepareTmp(ctx); err != nil {
			r := fsError(ex, p, "Directory", err)
			return "", &r
		}
	}
	unlock := t.e.locks.lock(rel)
	defer unlock()
	// The picture goes where the model said, never through a link.
	st, found, link, err := walkNoLinks(ctx, ex, rel)
	switch {
	case err != nil:
		r := fsError(ex, p, "File", err)
		return "", &r
	case link != "":
		r := errorResult("Cannot save to %s: %s is a symbolic link; name a path without links.", shown(ex, p), link)
		return "", &r
	case found && st.Dir:
		r := errorResult("%s is a directory.", shown(ex, p))
		return "", &r
	}
	if err := ex.WriteFile(ctx, rel, png); err != nil {
		r := fsError(ex, p, "Directory", err)
		return "", &r
	}
	return path.Clean(rel), nil
}

// capped keeps what is written up to max bytes and notes that more came.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.over || c.buf.Len()+len(p) > c.max {
		c.over = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

// stderrTail keeps the last max bytes written.
type stderrTail struct {
	b   []byte
	max int
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *stderrTail) text() string { return string(bytes.ToValidUTF8(t.b, []byte("?"))) }
