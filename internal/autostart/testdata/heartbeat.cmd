@echo off
set "BONSAI_DATA_DIR=C:\Users\ana\.bonsai"
"C:\Program Files\Bonsai\bonsai.exe" heartbeat >> "C:\Users\ana\.bonsai\logs\heartbeat.out" 2>&1
