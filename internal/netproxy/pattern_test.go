package netproxy

import (
	"strings"
	"testing"
)

func TestParseHost(t *testing.T) {
	good := []string{
		"proxy.golang.org", "PyPI.org", "example.com.", "*.example.com", "example.com:8443",
		"*.example.com:8080", "10.0.0.7", "10.0.0.7:8080", "::1", "[::1]", "[::1]:8080",
		"localhost", "my_host.internal", "a-b.c",
	}
	for _, p := range good {
		if err := ParseHost(p); err != nil {
			t.Errorf("ParseHost(%q) = %v", p, err)
		}
	}
	bad := map[string]string{
		"":                        "empty",
		"https://github.com":      "not a URL",
		"github.com/org":          "not a URL",
		"user@github.com":         "not a URL",
		"*":                       "wildcard",
		"*.com":                   "at least two labels",
		"a.*.com":                 "leading",
		"ex*mple.com":             "leading",
		"example.com:0":           "1 to 65535",
		"example.com:70000":       "1 to 65535",
		"example.com:http":        "1 to 65535",
		"example.com:":            "1 to 65535",
		"-bad.com":                "hyphen",
		"a..b":                    "empty label",
		"exa mple.com":            "not allowed",
		"fe80::1%eth0":            "zone",
		strings.Repeat("a", 64):   "63",
		"::1:8080:":               "port",
		"[::1":                    "split",
		"example.com:80:80":       "split",
		strings.Repeat("a.", 130): "253",
		"\u00e9xample.com":        "not allowed",
		"*.example.com:99999":     "1 to 65535",
		"10.0.0.7:":               "1 to 65535",
		"[example.com]:80":        "",
		"example.com:-1":          "1 to 65535",
		"*.*.example.com":         "leading",
		"example.com?x":           "not a URL",
		"exa#mple.com":            "not a URL",
		"ex:ample.com":            "1 to 65535",
		"[fe80::1%25eth0]:80":     "",
		"\texample.com\x00":       "not allowed",
		"example.com:08080000000": "1 to 65535",
		"example.com: 80":         "1 to 65535",
		"*.":                      "",
		"*.example.com.:80:":      "",
		"[::1]:":                  "1 to 65535",
		"0x7f.1":                  "",
		"[10.0.0.1]":              "",
		"https:":                  "",
		"a.b:c:d":                 "",
		"example.com:+80":         "",
		"bücher.example":          "",
		"example.com:080808":      "",
		"[1.2.3.4]:80":            "",
		"::ffff:1.2.3.4%x":        "",
		"example.com:80/":         "",
		"*example.com":            "",
		"example.com*":            "",
		"ex\\ample.com":           "",
		"example.com:８０":          "",
		"ex ample.com:80":         "",
		"example..com:80":         "",
		".example.com":            "",
		"*..example.com":          "",
		"*.-example.com":          "",
		"example-.com":            "",
		"example.com-:80":         "",
		"exa_mple.com:80:":        "",
		"[::1]8080":               "",
	}
	for p, want := range bad {
		err := ParseHost(p)
		if err == nil {
			// A few of these are accepted on purpose; list them explicitly.
			switch p {
			case "0x7f.1", "[10.0.0.1]", "[1.2.3.4]:80":
				continue
			}
			t.Errorf("ParseHost(%q) accepted", p)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ParseHost(%q) = %v, want it to mention %q", p, err, want)
		}
	}
}

func TestMatch(t *testing.T) {
	l, err := parseList([]string{"example.com", "*.example.org", "api.test:8443", "10.1.2.3:9000", "::1", "EXAMPLE.net."})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"example.com:443":        true,
		"example.com:80":         true,
		"Example.COM.:443":       true,
		"example.com:22":         false,
		"www.example.com:443":    false,
		"example.org:443":        false,
		"a.example.org:443":      true,
		"a.b.example.org:80":     true,
		"evilexample.org:443":    false,
		"api.test:8443":          true,
		"api.test:443":           false,
		"10.1.2.3:9000":          true,
		"10.1.2.3:443":           false,
		"[::1]:443":              true,
		"[::ffff:10.1.2.3]:9000": true,
		"[::2]:443":              false,
		"example.net:443":        true,
		"example.com.evil:443":   false,
	}
	for hp, want := range cases {
		tg, err := parseTarget(hp)
		if err != nil {
			t.Fatalf("%s: %v", hp, err)
		}
		if got := l.allows(tg); got != want {
			t.Errorf("allows(%s) = %v, want %v", hp, got, want)
		}
	}
	if l := (list{}); l.allows(target{name: "example.com", port: 443}) {
		t.Error("an empty list allowed a host")
	}
}

func TestDefaultAllow(t *testing.T) {
	d := DefaultAllow()
	if _, err := parseList(d); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"proxy.golang.org", "registry.npmjs.org", "files.pythonhosted.org", "static.crates.io", "repo1.maven.org", "codeload.github.com"} {
		tg, _ := parseTarget(h + ":443")
		if l, _ := parseList(d); !l.allows(tg) {
			t.Errorf("%s is not allowed by default", h)
		}
	}
	d[0] = "changed"
	if DefaultAllow()[0] == "changed" {
		t.Error("DefaultAllow returns its own slice")
	}
}

func TestRemoteHost(t *testing.T) {
	cases := map[string]string{
		"https://github.com/bonsai-run/bonsai.git": "github.com",
		"https://git.example.com:8443/x.git":       "git.example.com:8443",
		"https://git.example.com:443/x.git":        "git.example.com",
		"http://[::1]:3000/x":                      "[::1]:3000",
		"ssh://git@gitlab.com:2222/x.git":          "gitlab.com",
		"git@github.com:bonsai-run/bonsai.git":     "github.com",
		"github.com:x/y":                           "github.com",
	}
	for in, want := range cases {
		got, err := RemoteHost(in)
		if err != nil || got != want {
			t.Errorf("RemoteHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"/srv/git/x.git", "./x", "file:///srv/x.git", "https:///x", `C:\repos\x`, "c:/repos/x"} {
		if got, err := RemoteHost(in); err == nil {
			t.Errorf("RemoteHost(%q) = %q, want an error", in, got)
		}
	}
}
