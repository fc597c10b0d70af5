package execbin

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// Binary returns the bonsai-exec program built for this architecture,
// unpacked anew on each call, or nil and no error where none is
// embedded.
func Binary() ([]byte, error) {
	return unpack(packed)
}

// Write writes the program to w, unpacking it as it goes, so that it
// is never whole on the heap; it reports false, and writes nothing,
// where none is embedded.
func Write(w io.Writer) (bool, error) {
	if len(packed) == 0 {
		return false, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err == nil {
		_, err = io.Copy(w, zr)
	}
	if err != nil {
		return false, fmt.Errorf("execbin: the embedded bonsai-exec: %w", err)
	}
	return true, nil
}

// unpack returns the gzipped program gz, or nil for none.
func unpack(gz []byte) ([]byte, error) {
	if len(gz) == 0 {
		return nil, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("execbin: the embedded bonsai-exec: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("execbin: the embedded bonsai-exec: %w", err)
	}
	return b, nil
}
