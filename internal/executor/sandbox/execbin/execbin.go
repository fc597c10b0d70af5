package execbin

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"
)

var (
	once     sync.Once
	program  []byte
	unpacked error
)

// Binary returns the bonsai-exec program built for this architecture,
// unpacked once per process, or nil and no error where none is embedded.
// The caller must not change the slice.
func Binary() ([]byte, error) {
	once.Do(func() { program, unpacked = unpack(packed) })
	return program, unpacked
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
