package autostart

import (
	"fmt"
	"path/filepath"
	"strings"
)

// SystemdFiles returns the user service and timer for the heartbeat, to be
// written to ~/.config/systemd/user. The service is a oneshot: each beat is a
// fresh process that exits; the timer fires it every interval.
func SystemdFiles(s Spec, home string) []File {
	dir := filepath.Join(home, ".config", "systemd", "user")
	service := fmt.Sprintf(`[Unit]
Description=Bonsai heartbeat: run coding agents on the board's tickets
Documentation=https://github.com/bonsai-run/bonsai

[Service]
Type=oneshot
ExecStart=%s heartbeat %s
Environment=%s
%sTimeoutStartSec=%d
Nice=5
`, systemdQuote(s.Binary), ServiceFlag, systemdQuote("BONSAI_DATA_DIR="+s.DataDir), systemdPath(s.Path), s.MaxDurationSec+60)
	timer := fmt.Sprintf(`[Unit]
Description=Fire the Bonsai heartbeat every %d seconds

[Timer]
OnBootSec=%ds
OnUnitInactiveSec=%ds
AccuracySec=1s
Unit=%s.service

[Install]
WantedBy=timers.target
`, s.IntervalSec, s.IntervalSec, s.IntervalSec, Name)
	return []File{
		{Path: filepath.Join(dir, Name+".service"), Content: service},
		{Path: filepath.Join(dir, Name+".timer"), Content: timer},
	}
}

// systemdQuote quotes a word for a unit file: double quotes, with
// backslashes, quotes and specifiers escaped.
func systemdQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`, `$`, `$$`)
	return `"` + r.Replace(s) + `"`
}

// systemdPath is the Environment= line giving the beat the user's PATH,
// or nothing.
func systemdPath(path string) string {
	if path == "" {
		return ""
	}
	return "Environment=" + systemdQuote("PATH="+path) + "\n"
}
