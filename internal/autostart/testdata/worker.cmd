@echo off
rem Bonsai worker: a heartbeat loop running coding agents on the board's tickets
set "BONSAI_DATA_DIR=C:\Users\ana\.bonsai"
set "PATH=C:\Program Files\Git\cmd;C:\Users\ana\100%%\bin"
:run
"C:\Program Files\Bonsai\bonsai.exe" worker --service >> "C:\Users\ana\.bonsai\logs\heartbeat.out" 2>&1
if errorlevel 1 (
  ping -n 11 127.0.0.1 >nul
  goto run
)
