package insights

import (
	"strings"
	"testing"
)

func TestWriteCSV(t *testing.T) {
	t.Parallel()
	facts, projects := smallBoard()
	projects[0].Agent.Model = "=HYPERLINK(\"http://evil\")" // a model id a person typed
	r, err := Build(facts, projects, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		strings.Join(csvHeader, ","),
		`"'=HYPERLINK(""http://evil"")",2,1,0.5,1,3,1710,2,1,0.5,1.5,855,1,0.5,2,2.5,2.5`,
		`default,2,2,1,0,1,9,9,2,0,0.5,4.5,4.5,1,1,24,24`,
		`all,4,3,0.75,1,4,1719,11,3,0.25,1,429.75,2.75,0.75,3,4,9.666666666666666`,
	}
	same(t, "CSV lines", lines, want)
}
