package tools

import (
	"context"
	"regexp"
)

// hit is one line of grep output.
type hit struct {
	line  int
	text  string
	match bool
}

// fileHits holds the lines found in one file, in line order.
type fileHits struct {
	path  string
	lines []hit
}

// grepQuery is one search.
type grepQuery struct {
	re      *regexp.Regexp
	pattern string
	base    string
	isFile  bool
	keep    func(path string) bool // the glob filter
	ignore  bool
	literal bool
	context int
	limit   int   // stop after this many matches (Go search only)
	size    int64 // the file's size, when isFile (Go search only)
}

// grepResult is what a search found: the hits, and the files the Go
// search passed over for their size.
type grepResult struct {
	files   []fileHits
	skipped []string
	over    int64 // the size the skipped files are over
}

func (e *env) grep(ctx context.Context, q grepQuery) (grepResult, error) {
	if e.useRipgrep(ctx) {
		files, err := e.grepRg(ctx, q)
		return grepResult{files: files}, err
	}
	return e.grepGo(ctx, q)
}
