package tui

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// maxFiles bounds the workspace files @ completion lists.
const maxFiles = 20000

// workspaceFiles lists the workspace's files, relative and with /, for
// @ completion: .git and node_modules skipped, links listed by name and
// never followed (the workspace is the agent's to write).
func workspaceFiles(root string) []string {
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: left out
		}
		if len(files) >= maxFiles {
			return filepath.SkipAll
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if rel, err := filepath.Rel(root, p); err == nil && rel != "." && !d.IsDir() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files
}

// completeAt completes the @word before the cursor from the workspace's
// files: the longest common prefix of the paths that start with it, and
// a space after a single match. It returns the matches when more than
// one remains, for a hint.
func (m *Model) completeAt() []string {
	word := m.ed.ta.Word()
	if !strings.HasPrefix(word, "@") || m.ed.ta.Column() == 0 {
		return nil
	}
	if m.files == nil {
		m.files = workspaceFiles(m.opts.Root)
	}
	prefix := word[1:]
	var matches []string
	for _, f := range m.files {
		if strings.HasPrefix(f, prefix) {
			matches = append(matches, f)
		}
	}
	if len(matches) == 0 {
		return nil
	}
	common := matches[0]
	for _, f := range matches[1:] {
		for !strings.HasPrefix(f, common) {
			common = common[:len(common)-1]
		}
	}
	m.ed.ta.InsertString(strings.TrimPrefix(common, prefix))
	if len(matches) == 1 {
		m.ed.ta.InsertString(" ")
		return nil
	}
	return matches
}

// hintFiles shows at most eight matches on one line.
func hintFiles(matches []string) string {
	more := ""
	if len(matches) > 8 {
		matches, more = matches[:8], " …"
	}
	return strings.Join(matches, "  ") + more
}
