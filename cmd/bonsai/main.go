// Command bonsai is the Bonsai runtime: the board CLI, the heartbeat, the web
// UI and the standalone coding agent, in one binary.
package main

import "github.com/bonsai-run/bonsai/internal/cli"

func main() { cli.Main() }
