package llm

import (
	"bytes"
	"io"
)

// Body is a request body assembled from byte slices without copying them,
// so an adapter can send cached message encodings as they are: a request
// late in a long session then costs no allocation of its size. The slices
// must not change until the request is sent.
type Body struct {
	parts [][]byte
	size  int
}

// Write appends p to the body. It never fails.
func (b *Body) Write(p []byte) (int, error) {
	if len(p) > 0 {
		b.parts = append(b.parts, p)
		b.size += len(p)
	}
	return len(p), nil
}

// Len returns the body's size in bytes.
func (b *Body) Len() int { return b.size }

// Bytes returns the body as one slice (a copy).
func (b *Body) Bytes() []byte {
	return bytes.Join(b.parts, nil)
}

// Reader returns a reader of the body from its start; each call starts
// afresh, so a redirect can send it again.
func (b *Body) Reader() io.ReadCloser {
	return &bodyReader{parts: b.parts}
}

// bodyReader reads parts[i][off:] onwards; it never changes the parts.
type bodyReader struct {
	parts [][]byte
	i     int
	off   int
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.parts) {
		c := copy(p[n:], r.parts[r.i][r.off:])
		n += c
		r.off += c
		if r.off == len(r.parts[r.i]) {
			r.i, r.off = r.i+1, 0
		}
	}
	if n == 0 && r.i == len(r.parts) {
		return 0, io.EOF
	}
	return n, nil
}

func (r *bodyReader) Close() error { return nil }
