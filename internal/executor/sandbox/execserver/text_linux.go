package execserver

import "io"

// The server's messages and numbers without fmt or encoding/binary
// (reflect comes with both): the smaller the program, the less of it
// each sandbox maps (docs/sandbox.md, "The command server").

// say writes msg and a newline to w.
func say(w io.Writer, msg string) {
	_, _ = io.WriteString(w, msg+"\n")
}

// wrapped is an error that says what failed, then why, and wraps why.
type wrapped struct {
	what string
	err  error
}

func (e *wrapped) Error() string { return e.what + ": " + e.err.Error() }
func (e *wrapped) Unwrap() error { return e.err }

// putUint32 writes v big-endian into b's first four bytes.
func putUint32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

// appendUint32 appends v to b, big-endian.
func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// uint32At reads the big-endian number in b's first four bytes.
func uint32At(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
