package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execbin"
)

// programFD is the descriptor the embedded program is handed to bwrap
// as, after the control socket's listener (execserver's descriptor 3),
// and programIn the path bwrap runs it from, inside the sandbox: no
// file on any disk, nothing to bind.
const (
	programFD = 4
	programIn = "/proc/self/fd/4"
)

var embedded struct {
	once sync.Once
	f    *os.File
	err  error
}

// embeddedServer returns the embedded bonsai-exec (execbin) in a sealed
// memfd, made once per process and shared by every executor: nil, with
// the reason, where it cannot run (no build for this architecture, or a
// kernel that refuses executable memfds: vm.memfd_noexec=2), and the
// running binary serves instead.
func embeddedServer() (*os.File, error) {
	embedded.once.Do(func() {
		embedded.f, embedded.err = newProgram()
	})
	return embedded.f, embedded.err
}

// newProgram writes the embedded program into a new memfd, readable and
// executable by this user only, and seals it: from then on nobody, this
// process included, can write, grow or shrink it, or unseal it.
func newProgram() (*os.File, error) {
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate("bonsai-exec", flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate("bonsai-exec", flags) // before Linux 6.3, no MFD_EXEC
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: memfd for the exec server: %w", err)
	}
	f := os.NewFile(uintptr(fd), "bonsai-exec")
	ok, err := execbin.Write(f)
	if err == nil && ok {
		err = seal(f)
	}
	if err != nil || !ok {
		f.Close()
		if err != nil {
			err = fmt.Errorf("sandbox: memfd for the exec server: %w", err)
		}
		return nil, err
	}
	return f, nil
}

// seal makes the memfd f 0500 and seals it.
func seal(f *os.File) error {
	if err := f.Chmod(0o500); err != nil {
		return err
	}
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals|unix.F_SEAL_EXEC); err == nil {
		return nil // and its mode is fixed too (Linux 6.3 and later)
	}
	_, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals)
	return err
}

// serverCommand returns the path bwrap runs the command server from,
// inside the sandbox, the bwrap arguments that make it reachable there,
// and the files bwrap inherits after the control socket's listener.
func (s *Executor) serverCommand() (path string, binds []string, files []*os.File) {
	switch {
	case s.program != nil:
		return programIn, nil, []*os.File{s.program}
	case s.opts.Network == NetworkAll:
		// /run is the host's, read-only: the binary goes where it is.
		return s.exe, []string{"--ro-bind", s.exe, s.exe}, nil
	default:
		return serverIn, []string{"--ro-bind", s.exe, serverIn}, nil
	}
}
