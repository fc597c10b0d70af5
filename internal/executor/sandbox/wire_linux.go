package sandbox

import (
	"net"
	"os"
	"syscall"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver"
)

// writeRequest sends r to the command server (execserver's protocol)
// with the files stdin, stdout and stderr attached.
func writeRequest(c *net.UnixConn, r execserver.Request, stdio [3]*os.File) error {
	msg, err := execserver.EncodeRequest(r)
	if err != nil {
		return err
	}
	rights := syscall.UnixRights(int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd()))
	n, _, err := c.WriteMsgUnix(msg, rights, nil)
	if err != nil || n == len(msg) {
		// No empty write after a whole one: a command that already
		// ended has had its connection closed, and it would fail.
		return err
	}
	_, err = c.Write(msg[n:])
	return err
}
