package agent

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Skill is a SKILL.md file the model can read on demand.
type Skill struct {
	Name        string
	Description string
	// Path is where the model reads it with the read tool.
	Path string
}

// LoadSkills finds <dir>/SKILL.md files one level below the root of fsys
// and reads their frontmatter (name and description). prefix is joined
// before each file's path to form the path shown to the model. Files
// without a name or description are skipped with a warning.
func LoadSkills(fsys fs.FS, prefix string) ([]Skill, []string) {
	if fsys == nil {
		return nil, nil
	}
	dirs, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, nil // no skills directory
	}
	var (
		skills []Skill
		warns  []string
	)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		p := d.Name() + "/SKILL.md"
		b, err := readSkill(fsys, p)
		if err != nil {
			continue
		}
		name, desc := frontmatter(string(b))
		if name == "" || desc == "" {
			warns = append(warns, fmt.Sprintf("skill %s skipped: its frontmatter needs a name and a description", path.Join(prefix, p)))
			continue
		}
		skills = append(skills, Skill{Name: name, Description: desc, Path: path.Join(prefix, p)})
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, warns
}

// maxSkillHead is how much of a SKILL.md is read: its frontmatter is at
// the top.
const maxSkillHead = 64 << 10

// readSkill reads the head of a regular file. A skill directory may come
// from a repository: a SKILL.md that is a link to /dev/zero or a FIFO must
// not hang the prompt builder.
func readSkill(fsys fs.FS, p string) ([]byte, error) {
	// Stat before opening: opening a FIFO blocks until a writer comes.
	fi, err := fs.Stat(fsys, p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSkillHead))
}

// frontmatter reads name and description from a leading "---" block.
func frontmatter(s string) (name, desc string) {
	sc := bufio.NewScanner(strings.NewReader(s))
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return "", ""
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "---" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case "name":
			name = v
		case "description":
			desc = v
		}
	}
	return name, desc
}
