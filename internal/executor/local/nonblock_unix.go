//go:build unix

package local

import "syscall"

// openNonblock makes opening a FIFO return at once instead of waiting for
// a writer; it changes nothing for regular files.
const openNonblock = syscall.O_NONBLOCK
