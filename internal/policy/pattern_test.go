package policy

import (
	"strings"
	"testing"
)

func TestParsePattern_Good(t *testing.T) {
	for _, c := range []struct {
		pat       string
		match, no []string
	}{
		{"go test *", []string{"go test", "go test ./...", "go test -race -run X ./a ./b"}, []string{"go build", "go", "go vet ./..."}},
		{"make", []string{"make"}, []string{"make install", "cmake"}},
		{"make *", []string{"make", "make test"}, []string{"gmake test"}},
		{"npm run *", []string{"npm run lint", "npm run"}, []string{"npm install"}},
		{"npm run test:*", []string{"npm run test:unit", "npm run test:"}, []string{"npm run lint", "npm run test:unit x"}},
		{"git log *", []string{"git log --oneline"}, []string{"git push"}},
		{"/usr/bin/go test *", []string{"/usr/bin/go test ./...", "/usr/bin/../bin/go test"}, []string{"go test ./...", "/tmp/go test", "go run ."}},
		{"make test", []string{"make test", "timeout 60 make test", "make test 2>&1 | tail"}, []string{"./make test", "bin/make test", "/usr/bin/make test",
			"PATH=.:$PATH make test", "LD_PRELOAD=x make test", "make test >> ~/.bashrc", "env X=1 make test", "echo -k | xargs make test",
			"find . -execdir make test \\;", "make test x"}},
		{`echo "a b"`, []string{`echo 'a b'`}, []string{"echo a b"}},
		{"go test *.go", []string{"go test x_test.go", "go test a/b.go"}, []string{"go test ./...", "go test x.go y.go"}},
	} {
		p, err := ParsePattern(c.pat)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", c.pat, err)
		}
		if p.String() != c.pat {
			t.Errorf("String() = %q", p.String())
		}
		cfg := with(ModeAsk, []string{c.pat}, nil)
		for _, m := range c.match {
			if d := Judge(m, cfg); d.Verdict != Allow || d.Rule != "allow-pattern" {
				t.Errorf("pattern %q should allow %q: %s", c.pat, m, d)
			}
		}
		for _, m := range c.no {
			if d := Judge(m, cfg); d.Rule == "allow-pattern" {
				t.Errorf("pattern %q should not match %q: %s", c.pat, m, d)
			}
		}
	}
}

func TestParsePattern_Malformed(t *testing.T) {
	for pat, why := range map[string]string{
		"":                  "empty",
		"   ":               "empty",
		`go test "./...`:    "unbalanced",
		"echo 'x":           "unbalanced",
		"go test | sh":      "one simple command",
		"make; rm -rf x":    "one simple command",
		"make && make test": "one simple command",
		"make || true":      "one simple command",
		"make &":            "one simple command",
		"make > log":        "one simple command",
		"(make)":            "one simple command",
		"make\nls":          "one simple command",
		"X=1 make":          "assign",
		"go test $PKG":      "literal",
		"echo $(id)":        "literal",
		"* test":            "program name",
		"ls )":              "not a shell command",
		"./make test":       "relative path",
		"bin/x *":           "relative path",
	} {
		_, err := ParsePattern(pat)
		if err == nil {
			t.Errorf("ParsePattern(%q) accepted", pat)
			continue
		}
		if !strings.Contains(err.Error(), why) {
			t.Errorf("ParsePattern(%q) = %v; want it to say %q", pat, err, why)
		}
	}
}

func TestConfig_Validate(t *testing.T) {
	if err := (Config{Allow: []string{"go test *"}, Mode: ModeReadOnly}).Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	if err := (Config{Ask: []string{"a | b"}}).Validate(); err == nil || !strings.Contains(err.Error(), "a | b") {
		t.Errorf("malformed ask pattern: %v", err)
	}
	if err := (Config{Mode: "yolo"}).Validate(); err == nil || !strings.Contains(err.Error(), "yolo") {
		t.Errorf("unknown mode: %v", err)
	}
}

func TestJudge_MalformedPatternIsIgnored(t *testing.T) {
	cfg := with(ModeAsk, []string{"make | sh", "make *"}, nil)
	if d := Judge("make test", cfg); d.Verdict != Allow || d.Rule != "allow-pattern" {
		t.Errorf("the good pattern should still allow: %s", d)
	}
}
