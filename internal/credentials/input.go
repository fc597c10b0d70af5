package credentials

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"golang.org/x/term"
)

// InputError is a secret or name the person must give again: the
// command's usage error.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Sprintf(format, args...)}
}

// nameShape is what a provider name looks like: anything else on the
// command line may be a pasted key, which errors must not repeat.
var nameShape = regexp.MustCompile(`^[A-Za-z]{1,16}$`)

// ParseName checks a name from the command line: an *InputError for a
// word that may be a pasted key (never repeated whole), an
// *UnknownError for a name Bonsai does not store.
func ParseName(arg string) (Name, error) {
	if !nameShape.MatchString(arg) {
		return Name{}, inputErrorf("%q… is not a provider name; the key is never taken from the command line: run 'bonsai credentials set PROVIDER' and paste it, or pipe it in", FirstChars(arg, 3))
	}
	return Lookup(strings.ToLower(arg))
}

// FirstChars is the first n characters of s: what an error may show of
// a word that may be a secret.
func FirstChars(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// maxSecret bounds what is read from standard input for one key.
const maxSecret = 64 << 10

// ReadSecret reads the key of name: from the terminal without echo when
// stdin is one (prompting on prompt), else all of stdin, trimmed of
// surrounding white space. What the person must give again is an
// *InputError.
func ReadSecret(stdin io.Reader, prompt io.Writer, name string) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(prompt, "Paste the %s key (input is hidden) and press Enter: ", name)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("read the key from the terminal: %w", err)
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			return s, nil
		}
		return "", inputErrorf("no key was entered; nothing stored")
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxSecret+1))
	if err != nil {
		return "", fmt.Errorf("read the key from standard input: %w", err)
	}
	if len(b) > maxSecret {
		return "", inputErrorf("standard input holds more than 64 KiB: pipe in the key alone")
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", inputErrorf("standard input is empty: pipe in the key (e.g. 'pass show %s | bonsai credentials set %s'), or run the command in a terminal to paste it", name, name)
	}
	if strings.ContainsAny(s, "\r\n") {
		return "", inputErrorf("standard input holds several lines: pipe in the key alone")
	}
	return s, nil
}
