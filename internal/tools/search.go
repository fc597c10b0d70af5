package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// rgFlags make ripgrep walk the tree like walkFiles: hidden files, no .git,
// .gitignore honoured without needing a repository, and no ignore rules
// from outside the workspace or from other ignore-file kinds.
var rgFlags = []string{"--hidden", "--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot", "--no-config", "--glob", "!.git"}

// useRipgrep reports whether grep and find run rg.
func (e *env) useRipgrep(ctx context.Context) bool {
	switch e.opts.Search {
	case SearchGo:
		return false
	case SearchRipgrep:
		return true
	}
	e.rgOnce.Do(func() {
		x, err := e.ex.Exec(ctx, []string{"rg", "--version"}, executor.RunOptions{})
		e.rgOK = err == nil && x.Code == 0
	})
	return e.rgOK
}

// rgArgs adds the ignore files between the root and base, which ripgrep
// does not read when started below them.
func (e *env) rgArgs(ctx context.Context, base string) []string {
	args := append([]string(nil), rgFlags...)
	if base == "." {
		return args
	}
	if st, err := e.ex.Stat(ctx, ".git/info/exclude"); err == nil && !st.Dir {
		args = append(args, "--ignore-file", ".git/info/exclude")
	}
	parts := strings.Split(base, "/")
	for i := range parts {
		f := strings.Join(append(parts[:i:i], ".gitignore"), "/")
		if st, err := e.ex.Stat(ctx, f); err == nil && !st.Dir {
			args = append(args, "--ignore-file", f)
		}
	}
	return args
}

// listFiles returns the files under base that grep and find consider.
func (e *env) listFiles(ctx context.Context, base string) ([]string, error) {
	if !e.useRipgrep(ctx) {
		return walkFiles(ctx, e.ex, base)
	}
	args := append([]string{"rg", "--files", "--null"}, e.rgArgs(ctx, base)...)
	if base != "." {
		args = append(args, "--", base)
	}
	var out, errb bytes.Buffer
	x, err := e.ex.Exec(ctx, args, executor.RunOptions{Output: &out, Stderr: &errb})
	if err != nil {
		return nil, err
	}
	if x.Code == 2 && out.Len() == 0 && !noFiles(errb.String()) {
		return nil, fmt.Errorf("rg: %s", firstLine(errb.String()))
	}
	var files []string
	for _, f := range strings.Split(out.String(), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return pathLess(files[i], files[j]) })
	return files, nil
}

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

func (e *env) grepRg(ctx context.Context, q grepQuery) ([]fileHits, error) {
	args := append([]string{"rg", "--json"}, e.rgArgs(ctx, q.base)...)
	if q.ignore {
		args = append(args, "--ignore-case")
	}
	if q.literal {
		args = append(args, "--fixed-strings")
	}
	if q.context > 0 {
		args = append(args, "--context", fmt.Sprint(q.context))
	}
	args = append(args, "--regexp", q.pattern)
	if q.base != "." {
		args = append(args, "--", q.base)
	}
	var out, errb bytes.Buffer
	x, err := e.ex.Exec(ctx, args, executor.RunOptions{Output: &out, Stderr: &errb})
	if err != nil {
		return nil, err
	}
	byPath := map[string]*fileHits{}
	var order []*fileHits
	dec := json.NewDecoder(&out)
	for {
		var m rgMessage
		if err := dec.Decode(&m); err != nil {
			break
		}
		if m.Type != "match" && m.Type != "context" {
			continue
		}
		p := m.Data.Path.String()
		if !q.keep(p) {
			continue
		}
		fh := byPath[p]
		if fh == nil {
			fh = &fileHits{path: p}
			byPath[p] = fh
			order = append(order, fh)
		}
		text := strings.TrimSuffix(strings.TrimSuffix(m.Data.Lines.String(), "\n"), "\r")
		fh.lines = append(fh.lines, hit{line: m.Data.LineNumber, text: strings.ToValidUTF8(text, "\uFFFD"), match: m.Type == "match"})
	}
	if x.Code == 2 && len(order) == 0 && errb.Len() > 0 && !noFiles(errb.String()) {
		return nil, fmt.Errorf("rg: %s", firstLine(errb.String()))
	}
	res := make([]fileHits, len(order))
	for i, fh := range order {
		sort.Slice(fh.lines, func(a, b int) bool { return fh.lines[a].line < fh.lines[b].line })
		res[i] = *fh
	}
	sort.Slice(res, func(i, j int) bool { return pathLess(res[i].path, res[j].path) })
	return res, nil
}

// rgMessage is one line of rg --json output.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgData `json:"path"`
		Lines      rgData `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// rgData is text, or bytes in base64 when not valid UTF-8.
type rgData struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (d rgData) String() string {
	if d.Text != nil {
		return *d.Text
	}
	if d.Bytes != nil {
		b, _ := base64.StdEncoding.DecodeString(*d.Bytes)
		return string(b)
	}
	return ""
}

// batchReader is implemented by executors that read many files of one
// directory at a lower cost than one ReadFile each (executor.Local).
type batchReader interface {
	ReadFiles(ctx context.Context, dir string, names []string, fn func(i int, data []byte, err error)) error
}

// batchSize is how many files of one directory a grep job reads.
const batchSize = 64

// grepGo walks the tree and searches the files it finds in parallel while
// the walk goes on, keeping results in walk order and stopping once more
// than q.limit matches are known.
func (e *env) grepGo(ctx context.Context, q grepQuery) ([]fileHits, error) {
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
	emit := func(p string) {
		if !q.keep(p) || ctx.Err() != nil {
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
		emit(q.base)
	} else {
		werr = walk(ctx, e.ex, q.base, emit)
	}
	flush()
	close(jobs)
	wg.Wait()
	if matches <= q.limit {
		if werr != nil {
			return nil, werr
		}
		if scanned < len(files) {
			return nil, ctx.Err()
		}
	}
	var out []fileHits
	for i := 0; i < scanned; i++ {
		if len(results[i]) > 0 {
			out = append(out, fileHits{path: files[i], lines: results[i]})
		}
	}
	return out, nil
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

// noFiles reports whether rg's error only says that every file was
// ignored, which is an empty result here.
func noFiles(stderr string) bool {
	return strings.HasPrefix(strings.TrimSpace(stderr), "No files were searched")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
