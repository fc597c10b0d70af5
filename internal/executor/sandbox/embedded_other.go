//go:build !linux

package sandbox

import "os"

// embeddedServer: the sandbox runs on Linux only.
func embeddedServer() (*os.File, error) { return nil, nil }
