package execserver

import (
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"
)

// The server's sockets are plain descriptors wrapped in os.File, which
// waits on them through the runtime's poller as package net would:
// leaving net out keeps this program about 0.7 MB smaller, resident too.

// sock is a stream socket, listening or connected.
type sock struct {
	f  *os.File
	rc syscall.RawConn
}

// newSock wraps the descriptor fd, which it makes non-blocking so that
// reads and accepts wait in the poller, not in a thread.
func newSock(fd int, name string) (*sock, error) {
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &sock{f: f, rc: rc}, nil
}

// Read, Write and Close are the connection's.
func (s *sock) Read(b []byte) (int, error)  { return s.f.Read(b) }
func (s *sock) Write(b []byte) (int, error) { return s.f.Write(b) }
func (s *sock) Close() error                { return s.f.Close() }

// closeWrite half-closes the connection: the peer reads its end.
func (s *sock) closeWrite() {
	_ = s.rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_WR) })
}

// accept waits for a connection on the listening socket.
func (s *sock) accept() (*sock, error) {
	var nfd int
	var aerr error
	err := s.rc.Read(func(fd uintptr) bool {
		nfd, _, aerr = syscall.Accept4(int(fd), syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK)
		return aerr != syscall.EAGAIN
	})
	if err == nil {
		err = aerr
	}
	if err != nil {
		return nil, err
	}
	return newSock(nfd, "conn")
}

// recvmsg reads data into buf and control messages into oob, waiting for
// them.
func (s *sock) recvmsg(buf, oob []byte) (n, oobn int, err error) {
	var rerr error
	err = s.rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return rerr != syscall.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	if err == nil && n == 0 && oobn == 0 {
		err = io.EOF
	}
	return n, oobn, err
}

// listenLoopback listens on an ephemeral TCP port of 127.0.0.1 and
// returns the listener and its "127.0.0.1:port".
func listenLoopback() (*sock, string, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, "", err
	}
	loop := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := syscall.Bind(fd, loop); err == nil {
		err = syscall.Listen(fd, syscall.SOMAXCONN)
	}
	var sa syscall.Sockaddr
	if err == nil {
		sa, err = syscall.Getsockname(fd)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if err == nil && !ok {
		err = errors.New("not an IPv4 address")
	}
	if err != nil {
		syscall.Close(fd)
		return nil, "", err
	}
	s, err := newSock(fd, "loopback")
	if err != nil {
		return nil, "", err
	}
	return s, "127.0.0.1:" + strconv.Itoa(in4.Port), nil
}

// dialUnix connects to the unix socket at path. The connect itself
// blocks (briefly: the listener is the host's proxy), then the socket
// waits in the poller.
func dialUnix(path string) (*sock, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	return newSock(fd, "proxy")
}
