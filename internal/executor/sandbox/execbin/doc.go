// Package execbin holds the bonsai-exec program (package execserver's
// main), prebuilt for linux/amd64 and linux/arm64 and embedded gzipped,
// so that every sandbox runs a program of a few MB rather than the whole
// bonsai binary, and installing bonsai stays `go install ./cmd/bonsai`,
// one file, with no generate step. The committed builds are reproducible
// (gen.go: no cgo, -trimpath, no build id, no symbols); a test rebuilds
// them from source and fails when they are stale: after changing
// execserver, run `go generate ./internal/executor/sandbox/execbin`.
//
// Binary returns the program for the running architecture, or nil where
// none is embedded (another architecture or system), where the caller
// falls back to the bonsai binary as its own server.
package execbin

//go:generate go run gen.go
