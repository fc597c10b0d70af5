package autostart

import (
	"fmt"
	"path/filepath"
	"strings"
)

// TaskSchedulerWorkerFiles returns the Task Scheduler task that keeps
// `bonsai worker` running on Windows, in the same two files as the
// heartbeat's task (so one machine has one or the other): the definition
// for `schtasks /Create /XML` and the script it runs. The task starts at
// the logon of s.User (any user's when empty, which only an administrator
// may register) and when installed; it has no time limit. The script
// starts the worker again 10 seconds after it exits with a failure, as
// systemd's Restart=on-failure does; a worker that a signal or Ctrl-C
// stopped exits 0 and stays stopped. Task Scheduler retries a task that
// fails to start.
func TaskSchedulerWorkerFiles(s Spec) []File {
	script := filepath.Join(s.DataDir, "heartbeat.cmd")
	pct := strings.NewReplacer("%", "%%")
	path := ""
	if s.Path != "" {
		path = fmt.Sprintf("set \"PATH=%s\"\r\n", pct.Replace(s.Path))
	}
	// ping waits: timeout refuses to run without a console.
	wrapper := fmt.Sprintf("@echo off\r\nrem %s\r\nset \"BONSAI_DATA_DIR=%s\"\r\n%s:run\r\n"+
		"\"%s\" worker %s >> \"%s\" 2>&1\r\n"+
		"if errorlevel 1 (\r\n  ping -n 11 127.0.0.1 >nul\r\n  goto run\r\n)\r\n",
		taskWorkerMark, pct.Replace(s.DataDir), path, pct.Replace(s.Binary), ServiceFlag, pct.Replace(s.LogFile))
	user := ""
	if s.User != "" {
		user = "\n      <UserId>" + xmlText(s.User) + "</UserId>"
	}
	task := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>%s</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>%s
    </LogonTrigger>
  </Triggers>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <StartWhenAvailable>true</StartWhenAvailable>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
    <Enabled>true</Enabled>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>%s</Command>
    </Exec>
  </Actions>
</Task>
`, taskWorkerMark, user, xmlText(script))
	return []File{
		{Path: taskXML(s.DataDir), Content: task, UTF16: true},
		{Path: script, Content: wrapper},
	}
}

// taskWorkerMark is in the worker task's script and description, which
// tells an installed worker task from the heartbeat's.
const taskWorkerMark = "Bonsai worker: a heartbeat loop running coding agents on the board's tickets"

// TaskSchedulerWorker is the worker service as a Windows scheduled task
// whose definition is kept in the data directory: installing starts it
// at once, uninstalling ends the running worker.
func TaskSchedulerWorker(dataDir string) Platform {
	p := TaskScheduler(dataDir)
	p.Files = func(s Spec) []File {
		s.DataDir = dataDir
		return TaskSchedulerWorkerFiles(s)
	}
	p.Load = append(p.Load, []string{"schtasks", "/Run", "/TN", TaskName})
	p.Unload = append([][]string{{"schtasks", "/End", "/TN", TaskName}}, p.Unload...)
	p.mark = taskWorkerMark
	return p
}
