package autostart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path/filepath"
)

// LaunchdLabel is the launchd job label.
const LaunchdLabel = "run.bonsai.heartbeat"

// LaunchdFiles returns the LaunchAgent property list for the heartbeat, to
// be written to ~/Library/LaunchAgents.
func LaunchdFiles(s Spec, home string) []File {
	esc := func(v string) string {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(v))
		return b.String()
	}
	plist := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>%s</string>
	<key>ProgramArguments</key>
	<array>
		<string>%s</string>
		<string>heartbeat</string>
		<string>%s</string>
	</array>
	<key>EnvironmentVariables</key>
	<dict>
		<key>BONSAI_DATA_DIR</key>
		<string>%s</string>%s
	</dict>
	<key>StartInterval</key>
	<integer>%d</integer>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Background</string>
	<key>StandardOutPath</key>
	<string>%s</string>
	<key>StandardErrorPath</key>
	<string>%s</string>
</dict>
</plist>
`, LaunchdLabel, esc(s.Binary), ServiceFlag, esc(s.DataDir), launchdPath(s.Path, esc), s.IntervalSec, esc(s.LogFile), esc(s.LogFile))
	return []File{{Path: filepath.Join(home, "Library", "LaunchAgents", LaunchdLabel+".plist"), Content: plist}}
}

// launchdPath is the EnvironmentVariables entry giving the beat the user's
// PATH, or nothing.
func launchdPath(path string, esc func(string) string) string {
	if path == "" {
		return ""
	}
	return "\n\t\t<key>PATH</key>\n\t\t<string>" + esc(path) + "</string>"
}
