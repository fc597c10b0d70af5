//go:build unix

package executor

import (
	"io"
	"os"
	"syscall"
	"time"
)

// drainBuffered copies to w what the pipe r holds now, up to drainLimit,
// without waiting for more: r is non-blocking (Go's poller set it so), so
// a read of an empty pipe ends the copy.
func drainBuffered(w io.Writer, r *os.File, buf []byte) {
	if r.SetReadDeadline(time.Time{}) != nil {
		return
	}
	rc, err := r.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		for total := 0; total < drainLimit; {
			n, err := syscall.Read(int(fd), buf)
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 {
				break
			}
			_, _ = w.Write(buf[:n])
			total += n
		}
		return true
	})
}
