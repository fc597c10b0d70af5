package sandbox

import "github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver"

// BridgeArg is the hidden first argument that makes the bonsai binary
// the sandbox's proxy bridge, `bonsai <BridgeArg> <socket> -- argv…`, or
// its persistent command server, `bonsai <BridgeArg> --serve <socket|->`:
// the fallback for where the embedded bonsai-exec program cannot run
// (execbin). The program's main hands the arguments after it to
// BridgeMain before doing anything else.
const BridgeArg = execserver.Arg

// BridgeMain is the bridge or the command server (execserver.Main): args
// are what follows BridgeArg. It returns the exit code.
func BridgeMain(args []string) int { return execserver.Main(args) }
