//go:build !linux

package main

import "os"

// peakRSS is unknown here (macOS reports bytes, Windows has no rusage).
func peakRSS(*os.ProcessState) int64 { return 0 }
