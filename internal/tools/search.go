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
	limit   int // stop after this many matches (Go search only)
}

func (e *env) grep(ctx context.Context, q grepQuery) ([]fileHits, error) {
	if e.useRipgrep(ctx) {
		return e.grepRg(ctx, q)
	}
	return e.grepGo(ctx, q)
}
