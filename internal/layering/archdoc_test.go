package layering

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// backticked finds the `names` in a table cell.
var backticked = regexp.MustCompile("`([^`]+)`")

// readArchitecture reads the package table of docs/architecture.md: for
// each package (first column), the module packages its "may import"
// column (third) names in backticks, written relative to internal/ as
// the doc does ("board", "llm/openai"). "everything" allows any package;
// other words ("standard library", "small interfaces") add nothing.
func readArchitecture(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseArchitecture(f)
}

func parseArchitecture(f io.Reader) (map[string][]string, error) {
	allowed := map[string][]string{}
	sc := bufio.NewScanner(f)
	inTable := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| package |") {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		names := backticked.FindAllStringSubmatch(cells[0], -1)
		if len(names) == 0 {
			return nil, fmt.Errorf("architecture.md: no package in %q", line)
		}
		var may []string
		if strings.Contains(cells[2], "everything") {
			may = append(may, allowAll)
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			may = append(may, "internal/"+m[1])
		}
		for _, n := range names {
			allowed[n[1]] = may
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(allowed) == 0 {
		return nil, fmt.Errorf("architecture.md: no package table (a line starting \"| package |\")")
	}
	return allowed, nil
}
