package credentials

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestParseName_NeverRepeatsAPastedKey(t *testing.T) {
	t.Parallel()
	if n, err := ParseName("Anthropic"); err != nil || n.Name != "anthropic" {
		t.Errorf("ParseName(Anthropic) = %v, %v", n, err)
	}
	_, err := ParseName("sk-ant-api03-secretsecret")
	var ie *InputError
	if !errors.As(err, &ie) || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), `"sk-"…`) {
		t.Errorf("a pasted key: %v", err)
	}
	var ue *UnknownError
	if _, err := ParseName("antropic"); !errors.As(err, &ue) {
		t.Errorf("a typo: %v", err)
	}
}

func TestReadSecret_FromAPipe(t *testing.T) {
	t.Parallel()
	if s, err := ReadSecret(strings.NewReader("  sk-key-0001\n"), io.Discard, "openai"); err != nil || s != "sk-key-0001" {
		t.Errorf("one line: %q, %v", s, err)
	}
	for in, want := range map[string]string{
		"":                         "standard input is empty",
		"one\ntwo\n":               "several lines",
		strings.Repeat("k", 70000): "more than 64 KiB",
	} {
		_, err := ReadSecret(strings.NewReader(in), io.Discard, "openai")
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("input of %d bytes: %v; want an input error with %q", len(in), err, want)
		}
	}
}
