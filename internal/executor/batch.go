package executor

import (
	"context"
	"path"
	"strings"
)

// ReadFiles reads the named files of one directory, calling fn with each
// file's index in names and its content or error. Opening the directory
// once makes it much cheaper than ReadFile per file, which matters when
// grep reads a whole tree. Names must be plain file names.
func (l *Local) ReadFiles(ctx context.Context, dir string, names []string, fn func(i int, data []byte, err error)) error {
	rel, err := l.rel(dir)
	if err != nil {
		return l.pathErr("read", l.display(dir), err)
	}
	sub, err := l.fsroot.OpenRoot(rel)
	if err != nil {
		return l.pathErr("read", rel, err)
	}
	defer sub.Close()
	for i, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := path.Join(rel, n)
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
			fn(i, nil, l.pathErr("read", p, ErrOutsideRoot))
			continue
		}
		b, err := sub.ReadFile(n)
		if err != nil {
			fn(i, nil, l.pathErr("read", p, err))
			continue
		}
		fn(i, b, nil)
	}
	return nil
}
