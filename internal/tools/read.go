package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed read.md
var readDesc string

const readSchema = `{"type":"object","properties":{
"path":{"type":"string","description":"File path"},
"offset":{"type":"integer","minimum":1,"description":"First line, 1-based"},
"limit":{"type":"integer","minimum":1,"description":"Max lines"}},
"required":["path"],"additionalProperties":false}`

// maxImageBytes is the largest image read returns (the providers' limit).
const maxImageBytes = 5 << 20

// maxReadBytes is the largest file read loads.
const maxReadBytes = 256 << 20

// ReadDetails describes a read result for the UI.
type ReadDetails struct {
	Path        string `json:"path"`
	TotalLines  int    `json:"totalLines,omitempty"`
	StartLine   int    `json:"startLine,omitempty"`
	EndLine     int    `json:"endLine,omitempty"`
	Truncated   bool   `json:"truncated,omitempty"`
	TruncatedBy string `json:"truncatedBy,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Bytes       int64  `json:"bytes,omitempty"`
}

type readTool struct {
	spec
	e *env
	// skills, when not nil, reads the paths under e.opts.SkillsPrefix.
	skills *readTool
}

func newRead(e *env) *readTool {
	return &readTool{spec: newSpec("read", strings.TrimSpace(readDesc), readSchema), e: e}
}

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// Run implements tool.Tool.
func (t *readTool) Run(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a readArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	if t.skills != nil {
		if rest, ok := strings.CutPrefix(a.Path, t.e.opts.SkillsPrefix); ok {
			a.Path = rest
			return t.skills.read(ctx, a)
		}
	}
	return t.read(ctx, a)
}

func (t *readTool) read(ctx context.Context, a readArgs) (tool.Result, error) {
	ex := t.e.ex
	name := shown(ex, a.Path)
	st, err := ex.Stat(ctx, a.Path)
	if err != nil {
		return fsError(ex, a.Path, "File", err), nil
	}
	if st.Dir {
		return errorResult("%s is a directory. Use ls to list it.", name), nil
	}
	if st.Size > maxReadBytes {
		return errorResult("%s is %d MB, too large to read. Use grep, or bash with head, tail or sed.", name, st.Size>>20), nil
	}
	data, err := ex.ReadFile(ctx, a.Path)
	if err != nil {
		return fsError(ex, a.Path, "File", err), nil
	}
	if mime := imageType(data); mime != "" {
		if len(data) > maxImageBytes {
			return errorResult("Image %s is %.1f MB, over the 5 MB limit.", name, float64(len(data))/(1<<20)), nil
		}
		return tool.Result{
			Content: []llm.Part{
				llm.Text(fmt.Sprintf("Read image file %s [%s, %d bytes]", name, mime, len(data))),
				llm.Image(mime, base64.StdEncoding.EncodeToString(data)),
			},
			Details: ReadDetails{Path: name, MIMEType: mime, Bytes: int64(len(data))},
		}, nil
	}
	if bytes.HasPrefix(data, pdfMagic) {
		return readPDF(name, data), nil
	}
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return errorResult("%s is a binary file. Use bash with file, xxd or strings to inspect it.", name), nil
	}
	if !utf8.Valid(data) {
		line := bytes.Count(data[:invalidAt(data)], []byte("\n")) + 1
		return errorResult("%s is not valid UTF-8 (line %d). Use bash to convert it, e.g. iconv -f latin1 -t utf-8 %s", name, line, shellQuote(name)), nil
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	lines := splitLines(text)
	total := len(lines)
	if total == 0 {
		return textResult("[File is empty.]", ReadDetails{Path: name}), nil
	}
	start := max(a.Offset, 1)
	if start > total {
		return errorResult("Offset %d is past the end of %s (%d lines).", start, name, total), nil
	}
	end := total
	if a.Limit > 0 {
		end = min(total, start+a.Limit-1)
	}
	return t.format(name, lines, start, end, outputLimits), nil
}

// format numbers lines start..end (1-based), cut to the limits.
func (t *readTool) format(name string, lines []string, start, end int, lim limits) tool.Result {
	total := len(lines)
	width := len(strconv.Itoa(end))
	first := strings.TrimSuffix(lines[start-1], "\r")
	if len(first)+width+2 > lim.bytes {
		msg := fmt.Sprintf("[Line %d is %d KB, over the 50 KB limit. Use bash: sed -n '%dp' %s | head -c %d]",
			start, (len(first)+1023)/1024, start, shellQuote(name), maxBytes)
		return textResult(msg, ReadDetails{Path: name, TotalLines: total, StartLine: start, Truncated: true, TruncatedBy: "bytes"})
	}
	var b strings.Builder
	size, last, by := 0, start-1, ""
	for i := start; i <= end; i++ {
		if i-start >= lim.lines {
			by = "lines"
			break
		}
		line := strings.TrimSuffix(lines[i-1], "\r")
		cost := width + 1 + len(line) + 1
		if size+cost > lim.bytes {
			by = "bytes"
			break
		}
		size += cost
		last = i
	}
	width = len(strconv.Itoa(last))
	for i := start; i <= last; i++ {
		if i > start {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d\t%s", width, i, strings.TrimSuffix(lines[i-1], "\r"))
	}
	d := ReadDetails{Path: name, TotalLines: total, StartLine: start, EndLine: last, Truncated: by != "", TruncatedBy: by}
	if last < total {
		fmt.Fprintf(&b, "\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", start, last, total, last+1)
	}
	return textResult(b.String(), d)
}

// imageType returns the MIME type of an image by its magic bytes.
func imageType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// invalidAt returns the offset of the first invalid UTF-8 byte.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}
