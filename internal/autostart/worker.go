package autostart

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The worker service runs `bonsai worker` (a heartbeat loop in one
// long-running process, for a machine of a shared board that serves no UI)
// instead of firing `bonsai heartbeat` on a timer. It has the same name as
// the heartbeat service, so one machine has one or the other, and
// `service status`, `logs` and `uninstall` work on either.

// SystemdWorkerFiles returns the user service that keeps `bonsai worker`
// running, to be written to ~/.config/systemd/user. systemd stops it with
// SIGTERM and gives its beat MaxDurationSec to end.
func SystemdWorkerFiles(s Spec, home string) []File {
	dir := filepath.Join(home, ".config", "systemd", "user")
	service := fmt.Sprintf(`[Unit]
Description=%s
Documentation=https://github.com/bonsai-run/bonsai

[Service]
Type=simple
ExecStart=%s worker %s
Environment=%s
%sRestart=on-failure
RestartSec=10s
KillSignal=SIGTERM
TimeoutStopSec=%d
Nice=5

[Install]
WantedBy=default.target
`, systemdWorkerDescription, systemdQuote(s.Binary), ServiceFlag, systemdQuote("BONSAI_DATA_DIR="+s.DataDir), systemdPath(s.Path), s.MaxDurationSec+60)
	return []File{{Path: filepath.Join(dir, Name+".service"), Content: service}}
}

// systemdWorkerDescription is the worker unit's description, which tells
// an installed worker service from the heartbeat's oneshot.
const systemdWorkerDescription = "Bonsai worker: a heartbeat loop running coding agents on the board's tickets"

// LaunchdWorkerFiles returns the LaunchAgent that keeps `bonsai worker`
// running (KeepAlive), to be written to ~/Library/LaunchAgents.
func LaunchdWorkerFiles(s Spec, home string) []File {
	f := LaunchdFiles(s, home)[0]
	c := strings.Replace(f.Content, "<string>heartbeat</string>", launchdWorkerArg, 1)
	c = strings.Replace(c, fmt.Sprintf("\t<key>StartInterval</key>\n\t<integer>%d</integer>\n", s.IntervalSec),
		"\t<key>KeepAlive</key>\n\t<true/>\n", 1)
	f.Content = c
	return []File{f}
}

// launchdWorkerArg is the worker plist's program argument, which tells an
// installed worker service from the heartbeat's.
const launchdWorkerArg = "<string>worker</string>"

// SystemdWorker is the worker service as a systemd user service.
func SystemdWorker(home string) Platform {
	return Platform{
		Name:  "systemd",
		Files: func(s Spec) []File { return SystemdWorkerFiles(s, home) },
		Load: [][]string{
			{"systemctl", "--user", "daemon-reload"},
			{"systemctl", "--user", "enable", "--now", Name + ".service"},
		},
		Unload: [][]string{
			{"systemctl", "--user", "disable", "--now", Name + ".service"},
		},
		Status: []string{"systemctl", "--user", "status", Name + ".service", "--no-pager"},
		mark:   systemdWorkerDescription,
	}
}

// LaunchdWorker is the worker service as a LaunchAgent of the user with
// the given uid.
func LaunchdWorker(home string, uid int) Platform {
	p := Launchd(home, uid)
	p.Files = func(s Spec) []File { return LaunchdWorkerFiles(s, home) }
	p.mark = launchdWorkerArg
	return p
}

// IsWorker reports whether p's installed files are the worker service's
// (p being a worker platform): its files exist and one says so (Task
// Scheduler's definition is UTF-16; its script is not).
func (p Platform) IsWorker(dataDir string) bool {
	if p.mark == "" {
		return false
	}
	marked := false
	for _, path := range p.Paths(dataDir) {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		marked = marked || strings.Contains(string(b), p.mark)
	}
	return marked
}
