package autostart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
)

// TaskName is the Task Scheduler task's path.
const TaskName = `\Bonsai\Heartbeat`

// TaskSchedulerFiles returns the task definition for `schtasks /Create
// /XML`, kept in the data directory so uninstall and status can find it.
// The task repeats every interval, indefinitely, and never starts a second
// beat while one runs.
func TaskSchedulerFiles(s Spec) []File {
	// A task has no environment of its own, so it runs a small script that
	// sets the data directory and the user's PATH and appends the beat's
	// output to the log. A %% in a batch file is a literal %.
	script := filepath.Join(s.DataDir, "heartbeat.cmd")
	pct := strings.NewReplacer("%", "%%")
	path := ""
	if s.Path != "" {
		path = fmt.Sprintf("set \"PATH=%s\"\r\n", pct.Replace(s.Path))
	}
	wrapper := fmt.Sprintf("@echo off\r\nset \"BONSAI_DATA_DIR=%s\"\r\n%s\"%s\" heartbeat %s >> \"%s\" 2>&1\r\n",
		pct.Replace(s.DataDir), path, pct.Replace(s.Binary), ServiceFlag, pct.Replace(s.LogFile))
	task := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>Bonsai heartbeat: run coding agents on the board's tickets</Description>
  </RegistrationInfo>
  <Triggers>
    <TimeTrigger>
      <StartBoundary>2000-01-01T00:00:00</StartBoundary>
      <Enabled>true</Enabled>
      <Repetition>
        <Interval>PT%dS</Interval>
        <StopAtDurationEnd>false</StopAtDurationEnd>
      </Repetition>
    </TimeTrigger>
  </Triggers>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <StartWhenAvailable>true</StartWhenAvailable>
    <ExecutionTimeLimit>PT%dS</ExecutionTimeLimit>
    <Enabled>true</Enabled>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>%s</Command>
    </Exec>
  </Actions>
</Task>
`, s.IntervalSec, s.MaxDurationSec+60, xmlText(script))
	return []File{
		{Path: taskXML(s.DataDir), Content: task, UTF16: true},
		{Path: script, Content: wrapper},
	}
}

// xmlText escapes v for an XML element's text.
func xmlText(v string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(v))
	return b.String()
}

// taskXML is where the task definition is kept.
func taskXML(dataDir string) string { return filepath.Join(dataDir, "heartbeat-task.xml") }
