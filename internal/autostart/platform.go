package autostart

import (
	"fmt"
	"path/filepath"
)

// Platform is one service manager: the files it reads and the commands that
// load, unload and describe the heartbeat service.
type Platform struct {
	// Name is what people call the service manager.
	Name string
	// Files generates the service's files for a spec.
	Files func(Spec) []File
	// Load is run after the files are written; Unload before they are
	// removed; Status describes the installed service.
	Load, Unload [][]string
	Status       []string
	// mark is a text only a worker service's files hold (IsWorker).
	mark string
}

// Paths returns the files the platform installs, whatever the spec.
func (p Platform) Paths(dataDir string) []string {
	var out []string
	for _, f := range p.Files(Spec{DataDir: dataDir}) {
		out = append(out, f.Path)
	}
	return out
}

// Systemd is a systemd user timer and service in home's
// ~/.config/systemd/user.
func Systemd(home string) Platform {
	return Platform{
		Name:  "systemd",
		Files: func(s Spec) []File { return SystemdFiles(s, home) },
		Load: [][]string{
			{"systemctl", "--user", "daemon-reload"},
			{"systemctl", "--user", "enable", "--now", Name + ".timer"},
		},
		Unload: [][]string{
			{"systemctl", "--user", "disable", "--now", Name + ".timer"},
		},
		Status: []string{"systemctl", "--user", "list-timers", Name + ".timer", "--all", "--no-pager"},
	}
}

// Launchd is a LaunchAgent of the user with the given uid.
func Launchd(home string, uid int) Platform {
	plist := filepath.Join(home, "Library", "LaunchAgents", LaunchdLabel+".plist")
	domain := fmt.Sprintf("gui/%d", uid)
	return Platform{
		Name:   "launchd",
		Files:  func(s Spec) []File { return LaunchdFiles(s, home) },
		Load:   [][]string{{"launchctl", "bootstrap", domain, plist}},
		Unload: [][]string{{"launchctl", "bootout", domain + "/" + LaunchdLabel}},
		Status: []string{"launchctl", "print", domain + "/" + LaunchdLabel},
	}
}

// TaskScheduler is a Windows scheduled task whose definition is kept in the
// data directory.
func TaskScheduler(dataDir string) Platform {
	return Platform{
		Name: "Task Scheduler",
		Files: func(s Spec) []File {
			s.DataDir = dataDir
			return TaskSchedulerFiles(s)
		},
		Load:   [][]string{{"schtasks", "/Create", "/F", "/TN", TaskName, "/XML", taskXML(dataDir)}},
		Unload: [][]string{{"schtasks", "/Delete", "/F", "/TN", TaskName}},
		Status: []string{"schtasks", "/Query", "/TN", TaskName, "/V", "/FO", "LIST"},
	}
}
