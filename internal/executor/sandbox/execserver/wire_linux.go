package execserver

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// The command server's protocol, one connection per command. The host
// sends a request: a 4-byte big-endian length, then the request's body
// (encodeBody: the argv and the environment as counted lists of
// length-prefixed strings, then the directory), with the command's
// stdin, stdout and stderr attached to the first bytes as SCM_RIGHTS.
// The server answers with lines (ParseReply): "starting" just before it
// starts the command, "pid N" once the command runs, then "exit N", or
// "exit N tmpfull"; a command that cannot start gets "exit 126" or
// "exit 127", its reason written to its stderr. A connection that ends
// before "starting" means a command that never ran, which the host may
// send again; after it, one that may have run (and, say, killed the
// server before its PID was sent), which it must not. The host
// half-closes the connection to have the command killed; a closed
// connection kills it too. No encoding/json: the server is resident in
// every sandbox, and the smaller its program the less of it each one
// maps.

// Request is one command for the server.
type Request struct {
	Argv []string
	Env  []string
	Dir  string
}

// Reply is one line of the server's answer.
type Reply struct {
	Starting bool
	PID      int
	Exit     *int
	// TmpFull, with Exit, says the private /tmp had room when the
	// command started and none when it ended: the command filled it.
	TmpFull bool
}

// ErrTooLarge means a request is over maxRequest.
var ErrTooLarge = errors.New("command too large")

// maxRequest bounds a request's body: scripts and environments are
// large at times, never this large.
const maxRequest = 64 << 20

// EncodeRequest returns r as the host sends it: its length, then its
// body; the host attaches the command's stdin, stdout and stderr to its
// first bytes (SCM_RIGHTS).
func EncodeRequest(r Request) ([]byte, error) {
	size := 4 + 4 + 4 + 4 + len(r.Dir)
	for _, l := range [][]string{r.Argv, r.Env} {
		for _, v := range l {
			size += 4 + len(v)
		}
	}
	if size-4 > maxRequest {
		return nil, &wrapped{"the command and its environment take " + strconv.Itoa(size-4) + " bytes, more than " + strconv.Itoa(maxRequest), ErrTooLarge}
	}
	msg := make([]byte, 4, size)
	msg = appendStrings(msg, r.Argv)
	msg = appendStrings(msg, r.Env)
	msg = appendString(msg, r.Dir)
	putUint32(msg, uint32(len(msg)-4))
	return msg, nil
}

func appendStrings(b []byte, l []string) []byte {
	b = appendUint32(b, uint32(len(l)))
	for _, v := range l {
		b = appendString(b, v)
	}
	return b
}

func appendString(b []byte, v string) []byte {
	b = appendUint32(b, uint32(len(v)))
	return append(b, v...)
}

// errBadRequest is a request body that does not parse.
var errBadRequest = errors.New("bad request")

// decodeRequest parses a request's body (EncodeRequest's after the
// length).
func decodeRequest(b []byte) (Request, error) {
	var r Request
	var ok bool
	if r.Argv, b, ok = takeStrings(b); !ok {
		return r, errBadRequest
	}
	if r.Env, b, ok = takeStrings(b); !ok {
		return r, errBadRequest
	}
	if r.Dir, b, ok = takeString(b); !ok || len(b) != 0 || len(r.Argv) == 0 {
		return r, errBadRequest
	}
	return r, nil
}

func takeStrings(b []byte) ([]string, []byte, bool) {
	if len(b) < 4 {
		return nil, b, false
	}
	n := uint32At(b)
	b = b[4:]
	if uint64(n)*4 > uint64(len(b)) { // each string takes 4 bytes at least
		return nil, b, false
	}
	l := make([]string, 0, n)
	for range n {
		v, rest, ok := takeString(b)
		if !ok {
			return nil, b, false
		}
		l, b = append(l, v), rest
	}
	return l, b, true
}

func takeString(b []byte) (string, []byte, bool) {
	if len(b) < 4 {
		return "", b, false
	}
	n := uint32At(b)
	if uint64(n) > uint64(len(b)-4) {
		return "", b, false
	}
	return string(b[4 : 4+n]), b[4+n:], true
}

// AppendReply appends r's line to b.
func AppendReply(b []byte, r Reply) []byte {
	switch {
	case r.Starting:
		b = append(b, "starting"...)
	case r.PID != 0:
		b = strconv.AppendInt(append(b, "pid "...), int64(r.PID), 10)
	case r.Exit != nil:
		b = strconv.AppendInt(append(b, "exit "...), int64(*r.Exit), 10)
		if r.TmpFull {
			b = append(b, " tmpfull"...)
		}
	}
	return append(b, '\n')
}

// ParseReply parses one line of the server's answer, without its
// newline; ok is false for a line the server does not write.
func ParseReply(line []byte) (r Reply, ok bool) {
	word, rest, spaced := strings.Cut(string(line), " ")
	switch word {
	case "starting":
		return Reply{Starting: true}, !spaced
	case "pid":
		pid, err := strconv.Atoi(rest)
		return Reply{PID: pid}, err == nil && pid > 0
	case "exit":
		num, flag, flagged := strings.Cut(rest, " ")
		code, err := strconv.Atoi(num)
		if err != nil || code < 0 || flagged && flag != "tmpfull" {
			return Reply{}, false
		}
		return Reply{Exit: &code, TmpFull: flag == "tmpfull"}, true
	}
	return Reply{}, false
}

// writeReply writes r's line to w.
func writeReply(w io.Writer, r Reply) error {
	_, err := w.Write(AppendReply(nil, r))
	return err
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
		err = errors.New("a request came with " + strconv.Itoa(len(files)) + " files, not 3")
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
	size := int(uint32At(data))
	if size > maxRequest {
		return fail(errors.New("request too large"))
	}
	body := make([]byte, size)
	got := copy(body, data[4:])
	if _, err := io.ReadFull(c, body[got:]); err != nil {
		return fail(err)
	}
	if r, err = decodeRequest(body); err != nil {
		return fail(err)
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
