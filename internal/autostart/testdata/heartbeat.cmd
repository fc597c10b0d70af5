@echo off
set "BONSAI_DATA_DIR=C:\Users\ana\.bonsai"
set "PATH=C:\Program Files\Git\cmd;C:\Users\ana\100%%\bin"
"C:\Program Files\Bonsai\bonsai.exe" heartbeat --service >> "C:\Users\ana\.bonsai\logs\heartbeat.out" 2>&1
