package llm

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ErrorKind classifies a model failure.
type ErrorKind string

// The error kinds.
const (
	KindAuth            ErrorKind = "auth"             // bad or missing key, no permission (401, 403)
	KindRateLimit       ErrorKind = "rate_limit"       // 429
	KindOverloaded      ErrorKind = "overloaded"       // 529, 503, other 5xx, overloaded_error
	KindContextOverflow ErrorKind = "context_overflow" // the prompt does not fit the context window
	KindInvalidRequest  ErrorKind = "invalid_request"  // 400, 404, 413 and other client errors
	KindTransport       ErrorKind = "transport"        // connection failed or dropped, malformed stream
)

// Error is a classified model failure.
type Error struct {
	Kind     ErrorKind
	Provider string // "anthropic", "openai", …; empty when not known
	Status   int    // HTTP status; 0 when the failure was not an HTTP response
	// Message is the provider's message, or a description of the failure.
	Message string
	// RetryAfter is the delay the provider asked for; 0 when it gave none.
	RetryAfter time.Duration
	// Err is the underlying error, if any.
	Err error
}

// Error returns "provider: kind (status): message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	b.WriteString(string(e.Kind))
	if e.Status != 0 {
		b.WriteString(" (")
		b.WriteString(strconv.Itoa(e.Status))
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	} else if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed if sent again:
// rate limits, overload, server errors and transport failures.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimit, KindOverloaded, KindTransport:
		return true
	}
	return false
}

// ErrQuota is the underlying error (Err) of an [*Error] of kind
// [KindAuth] that says the account's quota or credit is used up (OpenAI's
// insufficient_quota): waiting does not fix it, the account's billing
// does. Test with errors.Is.
var ErrQuota = errors.New("the account's quota or credit is used up: check its plan and billing")

// KindOf returns the kind of the first [*Error] in err's chain, or "" when
// there is none.
func KindOf(err error) ErrorKind {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return ""
}

// IsContextOverflow reports whether err says the prompt is larger than the
// model's context window.
func IsContextOverflow(err error) bool { return KindOf(err) == KindContextOverflow }

// KindForStatus classifies an HTTP error status and the provider's error
// message: a message about the context window wins over the status.
func KindForStatus(status int, message string) ErrorKind {
	if IsOverflowMessage(message) || status == 413 && strings.Contains(strings.ToLower(message), "token") {
		return KindContextOverflow
	}
	switch {
	case status == 401 || status == 403:
		return KindAuth
	case status == 429:
		return KindRateLimit
	case status == 408:
		return KindTransport
	case status >= 500:
		return KindOverloaded
	}
	return KindInvalidRequest
}

// overflowPhrases are fragments of the messages providers send when the
// prompt does not fit, lower-cased.
var overflowPhrases = []string{
	"prompt is too long",                   // Anthropic
	"exceed context limit",                 // Anthropic: input length and max_tokens exceed context limit
	"context_length_exceeded",              // OpenAI error code
	"maximum context length",               // OpenAI, vLLM, OpenRouter
	"context window",                       // OpenAI Responses, several servers
	"reduce the length of the messages",    // Groq, OpenAI
	"exceeds the maximum number of tokens", // Gemini
	"exceeds the available context size",   // llama.cpp
	"exceeds the context size",             // llama.cpp older
	"too many tokens",                      // several
	"input is too long",                    // Bedrock-style
	"prompt too long",                      // Ollama
}

// IsOverflowMessage reports whether a provider's error message says the
// prompt is larger than the context window.
func IsOverflowMessage(message string) bool {
	m := strings.ToLower(message)
	for _, p := range overflowPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// ParseRetryAfter reads a Retry-After header value: delay seconds
// (fractions allowed) or an HTTP date, relative to now. It returns 0 for an
// empty or unreadable value or a date in the past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 1e6 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := time.Parse(time.RFC1123, v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

func quote(s string) string { return strconv.Quote(s) }
