//go:build !unix

package local

// openNonblock is not needed where opening a file never blocks.
const openNonblock = 0
