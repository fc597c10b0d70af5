package sandbox

import (
	"os"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// stdio is one command's files: its stdin (a pipe fed once the command
// runs, the caller's file, or /dev/null), its stdout and, when
// RunOptions.Stderr asks for it apart, its stderr: pipes read here.
type stdio struct {
	in, inW   *os.File // inW, the pipe's end fed from RunOptions.Stdin; nil for a file
	ownIn     bool     // in is this call's to close, not the caller's file
	out, outW *os.File
	err, errW *os.File // err nil, errW outW, when stderr goes with stdout
}

// newStdio makes the files of a command run with opts.
func newStdio(opts executor.RunOptions) (*stdio, error) {
	f := &stdio{}
	var err error
	switch in := opts.Stdin.(type) {
	case nil:
		f.in, err = os.Open(os.DevNull)
		f.ownIn = true
	case *os.File:
		f.in = in
	default:
		f.in, f.inW, err = os.Pipe()
		f.ownIn = true
	}
	if err == nil {
		f.out, f.outW, err = os.Pipe()
	}
	f.errW = f.outW
	if err == nil && opts.Stderr != nil {
		f.err, f.errW, err = os.Pipe()
	}
	if err != nil {
		f.closeReads()
		f.close()
		return nil, err
	}
	return f, nil
}

// sent closes this process's copies of the command's ends once the
// request carried them to the server, which alone holds them now.
func (f *stdio) sent() {
	if f.ownIn {
		f.in.Close()
	}
	f.outW.Close()
	f.errW.Close()
}

// closeReads closes the ends read here, for a command that never ran
// (output drained closes them otherwise).
func (f *stdio) closeReads() {
	for _, r := range []*os.File{f.out, f.err} {
		if r != nil {
			r.Close()
		}
	}
}

// close closes every end but those read here, the caller's stdin left
// open; again after sent does no harm.
func (f *stdio) close() {
	for _, w := range []*os.File{f.inW, f.outW, f.errW} {
		if w != nil {
			w.Close()
		}
	}
	if f.ownIn && f.in != nil {
		f.in.Close()
	}
}
