package executor

import (
	"errors"
	"io"
	"os"
	"time"
)

// DrainGrace bounds how long a command's output is read after the
// command has ended, for a process that outlived it holding the output.
const DrainGrace = 500 * time.Millisecond

// CopyOutput copies r to w until r ends, then signals done. A failing
// writer does not stop the copy, so it cannot block the command. When
// DrainOutput's deadline cuts the copy short, what the pipe already holds
// is copied still (drainBuffered): the deadline is for a process that
// outlived the command holding the pipe, not for what the command wrote
// before it ended, which a copy that ran late (a loaded machine: a beat
// of 60 runs lost the output of `git for-each-ref` so) has not read yet.
func CopyOutput(w io.Writer, r *os.File, done chan<- struct{}) {
	buf := make([]byte, 32*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			drainBuffered(w, r, buf)
		}
		if err != nil {
			break
		}
	}
	done <- struct{}{}
}

// drainLimit bounds what drainBuffered copies: a pipe holds at most 1 MiB
// (Linux's pipe-max-size), and a process still writing is not waited for.
const drainLimit = 1 << 20

// DrainOutput waits for pending CopyOutput calls to signal copied; after
// DrainGrace it cuts the reads of files short (a process that outlived
// the command may hold the write ends), then closes files.
func DrainOutput(copied <-chan struct{}, pending int, files ...*os.File) {
	t := time.NewTimer(DrainGrace)
	defer t.Stop()
	for pending > 0 {
		select {
		case <-copied:
			pending--
		case <-t.C:
			for _, f := range files {
				if f != nil {
					f.SetReadDeadline(time.Now())
				}
			}
		}
	}
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}
