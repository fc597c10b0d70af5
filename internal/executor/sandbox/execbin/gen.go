//go:build ignore

// Gen builds the bonsai-exec program (../execserver/bonsai-exec) for
// every architecture the bonsai binary embeds it on, reproducibly, and
// writes each gzipped here (or into the -o directory): run by `go
// generate`, and by the test that fails when the committed ones are
// stale.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// program is the package built.
const program = "github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver/bonsai-exec"

// arches are the linux architectures embedded (embed_*.go).
var arches = []string{"amd64", "arm64"}

func main() {
	out := flag.String("o", ".", "the directory to write bonsai-exec-linux-<arch>.gz to")
	flag.Parse()
	for _, arch := range arches {
		if err := gen(arch, *out); err != nil {
			fmt.Fprintf(os.Stderr, "gen: linux/%s: %v\n", arch, err)
			os.Exit(1)
		}
	}
}

// gen builds the program for linux/arch and writes it gzipped into dir.
func gen(arch, dir string) error {
	tmp, err := os.MkdirTemp("", "bonsai-exec-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bonsai-exec")
	// The same bytes from the same source and toolchain anywhere: no
	// cgo, no paths, no build id, no symbols, the baseline instruction
	// sets, and nothing from the caller's GOFLAGS or experiments.
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w -buildid=", "-o", bin, program)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=", "GOEXPERIMENT=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // no name, no time: the same bytes every time
	if _, err := zw.Write(b); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "bonsai-exec-linux-"+arch+".gz"), buf.Bytes(), 0o644)
}
