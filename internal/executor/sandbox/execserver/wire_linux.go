package execserver

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// The command server's protocol, one connection per command. The host
// sends a request: a 4-byte big-endian length, then the request as JSON,
// with the command's stdin, stdout and stderr attached to the first
// bytes as SCM_RIGHTS. The server answers with JSON lines:
// {"starting":true} just before it starts the command, {"pid":N} once
// the command runs, then {"exit":N}; a command that cannot start gets
// {"exit":126 or 127}, its reason written to its stderr. A connection
// that ends before "starting" means a command that never ran, which the
// host may send again; after it, one that may have run (and, say,
// killed the server before its PID was sent), which it must not. The
// host half-closes the connection to have the command killed; a closed
// connection kills it too.

// Request is one command for the server.
type Request struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// Reply is one line of the server's answer.
type Reply struct {
	Starting bool `json:"starting,omitempty"`
	PID      int  `json:"pid,omitempty"`
	Exit     *int `json:"exit,omitempty"`
	// TmpFull, with Exit, says the private /tmp had room when the
	// command started and none when it ended: the command filled it.
	TmpFull bool `json:"tmpFull,omitempty"`
}

// ErrTooLarge means a request is over maxRequest.
var ErrTooLarge = errors.New("command too large")

// maxRequest bounds a request's JSON: scripts and environments are
// large at times, never this large.
const maxRequest = 64 << 20

// EncodeRequest returns r as the host sends it: its length, then its
// JSON; the host attaches the command's stdin, stdout and stderr to its
// first bytes (SCM_RIGHTS).
func EncodeRequest(r Request) ([]byte, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if len(body) > maxRequest {
		return nil, fmt.Errorf("%w: the command and its environment take %d bytes, more than %d", ErrTooLarge, len(body), maxRequest)
	}
	msg := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(msg, uint32(len(body)))
	copy(msg[4:], body)
	return msg, nil
}

// readRequest reads a request and the three files that come with it.
func readRequest(c *sock) (Request, []*os.File, error) {
	var r Request
	buf := make([]byte, 16<<10)
	oob := make([]byte, syscall.CmsgSpace(3*4))
	n, oobn, err := c.recvmsg(buf, oob)
	files, ferr := parseRights(oob[:oobn])
	if err == nil {
		err = ferr
	}
	if err == nil && len(files) != 3 {
		err = fmt.Errorf("a request came with %d files, not 3", len(files))
	}
	if err != nil {
		closeFiles(files)
		return r, nil, err
	}
	fail := func(err error) (Request, []*os.File, error) {
		closeFiles(files)
		return r, nil, err
	}
	data := buf[:n]
	for len(data) < 4 {
		m, err := c.Read(buf[n:])
		if err != nil {
			return fail(err)
		}
		n += m
		data = buf[:n]
	}
	size := int(binary.BigEndian.Uint32(data))
	if size > maxRequest {
		return fail(errors.New("request too large"))
	}
	body := make([]byte, size)
	got := copy(body, data[4:])
	if _, err := io.ReadFull(c, body[got:]); err != nil {
		return fail(err)
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Argv) == 0 {
		return fail(fmt.Errorf("bad request: %v", err))
	}
	return r, files, nil
}

// parseRights returns the files of the SCM_RIGHTS messages in oob.
func parseRights(oob []byte) ([]*os.File, error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "stdio"))
		}
	}
	return files, nil
}

// closeFiles closes the files that are not nil.
func closeFiles(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}
