//go:build linux && arm64

package execbin

import _ "embed"

// packed is bonsai-exec for linux/arm64, gzipped (gen.go).
//
//go:embed bonsai-exec-linux-arm64.gz
var packed []byte
