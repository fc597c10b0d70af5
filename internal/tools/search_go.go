package tools

import (
	"bytes"
	"context"
	"path"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// batchReader is implemented by executors that read many files of one
// directory at a lower cost than one ReadFile each (local.Executor).
type batchReader interface {
	ReadFiles(ctx context.Context, dir string, names []string, fn func(i int, data []byte, err error)) error
}

// batchSize is how many files of one directory a grep job reads.
const batchSize = 64

// maxGrepFileBytes is the largest file the Go search reads: it reads each
// file whole, so a multi-gigabyte log would cost that much memory. Larger
// files are listed as skipped (ripgrep, which streams, searches them).
const maxGrepFileBytes = 64 << 20

// grepGo walks the tree and searches the files it finds in parallel while
// the walk goes on, keeping results in walk order and stopping once more
// than q.limit matches are known. Files over the size limit are skipped.
func (e *env) grepGo(ctx context.Context, q grepQuery) (grepResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A job is a run of files of one directory, at indexes first….
	type job struct {
		first int
		dir   string
		names []string
	}
	jobs := make(chan job, 64)
	var (
		mu      sync.Mutex
		files   []string
		results [][]hit
		done    []bool
		scanned int
		matches int
		skipped []string
	)
	record := func(i int, hits []hit) {
		mu.Lock()
		defer mu.Unlock()
		results[i], done[i] = hits, true
		for scanned < len(done) && done[scanned] {
			for _, h := range results[scanned] {
				if h.match {
					matches++
				}
			}
			scanned++
		}
		if matches > q.limit {
			cancel()
		}
	}
	br, batched := e.ex.(batchReader)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue
				}
				// Vanished or unreadable files are skipped, as rg does.
				search := func(k int, data []byte, err error) {
					var hits []hit
					if err == nil {
						hits = searchData(q.re, data, q.context)
					}
					record(j.first+k, hits)
				}
				if batched && br.ReadFiles(ctx, j.dir, j.names, search) == nil {
					continue
				}
				for k, n := range j.names {
					data, err := e.ex.ReadFile(ctx, path.Join(j.dir, n))
					search(k, data, err)
				}
			}
		}()
	}
	var cur job
	flush := func() {
		if len(cur.names) > 0 {
			jobs <- cur
		}
		cur = job{}
	}
	emit := func(p string, size int64) {
		if !q.keep(p) || ctx.Err() != nil {
			return
		}
		if size > e.maxGrepFile() {
			skipped = append(skipped, p)
			return
		}
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		if dir != cur.dir || len(cur.names) == batchSize {
			flush()
		}
		mu.Lock()
		if len(cur.names) == 0 {
			cur = job{first: len(files), dir: dir}
		}
		files = append(files, p)
		results = append(results, nil)
		done = append(done, false)
		mu.Unlock()
		cur.names = append(cur.names, name)
	}
	var werr error
	if q.isFile {
		emit(q.base, q.size)
	} else {
		werr = walk(ctx, e.ex, q.base, emit)
	}
	flush()
	close(jobs)
	wg.Wait()
	if matches <= q.limit {
		if werr != nil {
			return grepResult{}, werr
		}
		if scanned < len(files) {
			return grepResult{}, ctx.Err()
		}
	}
	var out []fileHits
	for i := 0; i < scanned; i++ {
		if len(results[i]) > 0 {
			out = append(out, fileHits{path: files[i], lines: results[i]})
		}
	}
	return grepResult{files: out, skipped: skipped, over: e.maxGrepFile()}, nil
}

// maxGrepFile is the size limit of the Go search.
func (e *env) maxGrepFile() int64 {
	if e.opts.maxGrepFile > 0 {
		return e.opts.maxGrepFile
	}
	return maxGrepFileBytes
}

// searchData finds the lines of data that re matches, with n lines of
// context around each. Files holding a NUL byte are binary and skipped.
func searchData(re *regexp.Regexp, data []byte, n int) []hit {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	var matched []int // 0-based line numbers
	var starts []int  // their byte offsets
	line, counted := 0, 0
	for pos := 0; pos <= len(data); {
		loc := re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		at := pos + loc[0]
		ls := bytes.LastIndexByte(data[:at], '\n') + 1
		if ls == len(data) && ls > 0 {
			break // past the final newline there is no line
		}
		le := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			le = at + i
		}
		line += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		if re.Match(data[ls:le]) {
			matched = append(matched, line)
			starts = append(starts, ls)
		}
		pos = le + 1
	}
	if len(matched) == 0 {
		return nil
	}
	if n == 0 {
		hits := make([]hit, len(matched))
		for i, l := range matched {
			end := bytes.IndexByte(data[starts[i]:], '\n')
			if end < 0 {
				end = len(data) - starts[i]
			}
			hits[i] = hit{line: l + 1, text: lineText(data[starts[i] : starts[i]+end]), match: true}
		}
		return hits
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	isMatch := make(map[int]bool, len(matched))
	for _, l := range matched {
		isMatch[l] = true
	}
	var hits []hit
	last := -1
	for _, l := range matched {
		for k := max(l-n, last+1); k <= min(l+n, len(lines)-1); k++ {
			hits = append(hits, hit{line: k + 1, text: lineText([]byte(lines[k])), match: isMatch[k]})
			last = k
		}
	}
	return hits
}

func lineText(b []byte) string {
	return strings.ToValidUTF8(strings.TrimSuffix(string(b), "\r"), "\uFFFD")
}
