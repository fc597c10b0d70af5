package notify

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
)

// desktop shows the message on this machine's desktop: notify-send on
// Linux and the BSDs, osascript on macOS. Where neither exists (Windows,
// a server without a desktop) the attempt fails at once, with the reason.
type desktop struct{ o Options }

// DesktopCommand returns the program and arguments that show a
// notification here, or an error saying why there is none.
func DesktopCommand(lookPath func(string) (string, error), subject, body string) (string, []string, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	switch runtime.GOOS {
	case "darwin":
		p, err := lookPath("osascript")
		if err != nil {
			return "", nil, permanent("no desktop notifier: osascript is not on PATH")
		}
		return p, []string{"-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)",
			"-e", "end run", subject, body}, nil
	case "windows":
		return "", nil, permanent("desktop notifications are not supported on Windows yet; use another channel")
	}
	p, err := lookPath("notify-send")
	if err != nil {
		return "", nil, permanent("no desktop notifier: notify-send is not on PATH (install libnotify-bin or libnotify)")
	}
	return p, []string{"--app-name=Bonsai", "--", subject, body}, nil
}

func (d *desktop) Send(ctx context.Context, m Message) error {
	prog, args, err := DesktopCommand(d.o.LookPath, m.Subject, m.Body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.timeout())
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("desktop notification: %v: %s", err, out)
	}
	return nil
}
