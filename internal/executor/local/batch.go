package local

import (
	"context"
	"io"
	"os"
	"path"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// ReadFiles reads the named files of one directory, calling fn with each
// file's index in names and its content or error. Opening the directory
// once, and reading every file into one reused buffer, makes it much
// cheaper than ReadFile per file, which matters when grep reads a whole
// tree. data is valid only until fn returns. Names must be plain file names.
func (l *Executor) ReadFiles(ctx context.Context, dir string, names []string, fn func(i int, data []byte, err error)) error {
	rel, err := l.rel(dir)
	if err != nil {
		return l.pathErr("read", l.display(dir), err)
	}
	sub, err := l.fsroot.OpenRoot(rel)
	if err != nil {
		return l.pathErr("read", rel, err)
	}
	defer sub.Close()
	buf := make([]byte, 0, 64*1024)
	for i, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := path.Join(rel, n)
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
			fn(i, nil, l.pathErr("read", p, executor.ErrOutsideRoot))
			continue
		}
		b, err := readInto(sub, n, buf[:0])
		if err != nil {
			fn(i, nil, l.pathErr("read", p, err))
			continue
		}
		buf = b
		fn(i, b, nil)
	}
	return nil
}

// readInto reads a whole file into buf, growing it as needed.
func readInto(r *os.Root, name string, buf []byte) ([]byte, error) {
	f, err := openRegular(r, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFrom(f, buf)
}

// readFrom reads f to its end into buf, growing it as needed.
func readFrom(f *os.File, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// openRegular opens name for reading and refuses anything but a regular
// file (a directory's error is left to Read). The open does not block: a
// FIFO the agent made where AGENTS.md goes would otherwise hang the
// prompt builder, and with it the heartbeat and its lock.
func openRegular(r *os.Root, name string) (*os.File, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		f.Close()
		return nil, executor.ErrNotRegular
	}
	return f, nil
}
