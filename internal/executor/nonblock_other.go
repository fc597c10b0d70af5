//go:build !unix

package executor

// openNonblock is not needed where opening a file never blocks.
const openNonblock = 0
