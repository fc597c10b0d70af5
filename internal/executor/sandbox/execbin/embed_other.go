//go:build !linux || !(amd64 || arm64)

package execbin

// packed is empty: no bonsai-exec is built for this system, and the
// sandbox (Linux only) runs the bonsai binary as its own server.
var packed []byte
