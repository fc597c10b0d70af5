package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestRedactor_String(t *testing.T) {
	r := NewRedactor("sk-secret-123", "key", "  ", "sk-secret-123456", "ghp_0123456789")
	got := r.String("Bearer sk-secret-123456, then sk-secret-123 and ghp_0123456789; the key is short")
	want := "Bearer [redacted], then [redacted] and [redacted]; the key is short"
	if got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if r.Len() != 3 {
		t.Errorf("Len = %d, want 3 (a 3-byte secret and blanks are ignored)", r.Len())
	}
	var none *Redactor
	if none.String("sk-secret-123") != "sk-secret-123" || none.Error(context.Canceled) != context.Canceled {
		t.Error("a nil Redactor changed its input")
	}
	if r.With("another-secret").String("another-secret sk-secret-123") != "[redacted] [redacted]" {
		t.Error("With lost a secret")
	}
}

func TestRedactor_Error(t *testing.T) {
	r := NewRedactor("sk-secret-123")
	in := &Error{Kind: KindRateLimit, Provider: "p", Status: 429, Message: "slow down, sk-secret-123"}
	err := r.Error(in)
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Kind != KindRateLimit || e.Status != 429 || e.Message != "slow down, [redacted]" {
		t.Fatalf("redacted *Error = %#v", err)
	}
	if in.Message != "slow down, sk-secret-123" {
		t.Error("the original error was changed")
	}
	// An *Error without a message shows its cause: that is redacted too.
	err = r.Error(&Error{Kind: KindTransport, Err: fmt.Errorf("dial http://u:sk-secret-123@h: %w", context.DeadlineExceeded)})
	if strings.Contains(err.Error(), "sk-secret") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cause: %v", err)
	}
	wrapped := fmt.Errorf("run: %w", &Error{Kind: KindAuth, Message: "bad key sk-secret-123"})
	err = r.Error(wrapped)
	if err.Error() != "run: auth: bad key [redacted]" || KindOf(err) != KindAuth {
		t.Errorf("wrapped = %v (kind %s)", err, KindOf(err))
	}
	if err := r.Error(context.Canceled); err != context.Canceled {
		t.Errorf("context error = %v", err)
	}
}

func TestURLSecrets(t *testing.T) {
	got := URLSecrets("http://bob:hunter2-secret@proxy:8080/v1")
	// "Ym9iOmh1bnRlcjItc2VjcmV0" is base64("bob:hunter2-secret"), what
	// basic authentication sends.
	if len(got) != 2 || got[0] != "hunter2-secret" || got[1] != "Ym9iOmh1bnRlcjItc2VjcmV0" {
		t.Errorf("URLSecrets = %q", got)
	}
	if got := URLSecrets("https://ghp_tokentokentoken@github.com/o/r.git"); len(got) == 0 || got[0] != "ghp_tokentokentoken" {
		t.Errorf("token as user: %q", got)
	}
	if got := URLSecrets("https://api.openai.com/v1"); got != nil {
		t.Errorf("no user info: %q", got)
	}
	for in, want := range map[string]string{
		"http://bob:hunter2-secret@proxy:8080/v1":        "http://bob:xxxxx@proxy:8080/v1",
		"https://ghp_tokentokentoken@github.com/o/r.git": "https://github.com/o/r.git",
		"https://api.openai.com/v1":                      "https://api.openai.com/v1",
	} {
		if got := HidePassword(in); got != want {
			t.Errorf("HidePassword(%s) = %s, want %s", in, got, want)
		}
	}
}
