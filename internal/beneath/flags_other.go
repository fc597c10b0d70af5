//go:build !unix

package beneath

const (
	oNoFollow = 0
	oNonBlock = 0
)

func isLoop(error) bool { return false }
