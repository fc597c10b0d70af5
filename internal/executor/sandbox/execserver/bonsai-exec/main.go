// Command bonsai-exec is the program that runs inside every bubblewrap
// sandbox of the sandbox executor: its command server, or the proxy
// bridge of a per-command sandbox (package execserver). The bonsai
// binary embeds it, built by `go generate ./internal/executor/sandbox/execbin`,
// and runs it from memory; it is not meant to be installed or run by hand.
package main

import (
	"os"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != execserver.Arg {
		os.Stderr.WriteString("bonsai-exec: started by the bonsai sandbox, not by hand\n")
		os.Exit(2)
	}
	os.Exit(execserver.Main(os.Args[2:]))
}
