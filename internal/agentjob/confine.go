package agentjob

import (
	"errors"
	"io"
	"os"
)

// errNotRegular refuses a device, a FIFO or a directory where a text file
// is expected: reading /dev/zero would never end.
var errNotRegular = errors.New("not a regular file")

// readInRoot reads at most limit bytes of the regular file name inside dir,
// refusing symlinks that lead out of dir. Repository contents are untrusted:
// a committed symlink must not put a host file into the prompt.
func readInRoot(dir, name string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Stat before opening: opening a FIFO blocks until a writer comes.
	fi, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}
