package tools

// WithMaxGrepFile returns o with the Go search's file size limit set to n,
// so that a test need not write a 64 MB file.
func WithMaxGrepFile(o Options, n int64) Options {
	o.maxGrepFile = n
	return o
}
