//go:build linux && amd64

package execbin

import _ "embed"

// packed is bonsai-exec for linux/amd64, gzipped (gen.go).
//
//go:embed bonsai-exec-linux-amd64.gz
var packed []byte
