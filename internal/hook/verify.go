package hook

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The headers of the generic scheme, besides its signature header.
const (
	DefaultHeader   = "X-Signature"
	TimestampHeader = "X-Hook-Timestamp"
	NonceHeader     = "X-Hook-Nonce"
	EventHeader     = "X-Hook-Event"
)

// MaxSkew is how far a generic delivery's timestamp may be from the
// server's clock.
const MaxSkew = 5 * time.Minute

// maxID caps a delivery id or nonce.
const maxID = 200

// Delivery is a verified delivery: who says it is which, and its payload.
type Delivery struct {
	// ID is the sender's delivery id (the generic scheme's nonce).
	ID string
	// Event is the sender's event and the payload's action, e.g.
	// "issues.labeled" (GitHub, Gitea), "issue.open" (GitLab).
	Event string
	// Payload is the decoded JSON body.
	Payload any
}

// Refusal is why a delivery was refused: Status is the HTTP status, Reason
// what the delivery log says (never the secret or the payload).
type Refusal struct {
	Status int
	Reason string
	// Unverified is true when the sender was not proven: the answer must
	// then say no more than that.
	Unverified bool
}

func (r *Refusal) Error() string { return r.Reason }

func unverified(format string, args ...any) *Refusal {
	return &Refusal{Status: http.StatusUnauthorized, Reason: sprintf(format, args...), Unverified: true}
}

func invalid(format string, args ...any) *Refusal {
	return &Refusal{Status: http.StatusBadRequest, Reason: sprintf(format, args...)}
}

// Verify checks that body and header come from h's sender, who knows
// secret, and returns the delivery's id, event and payload. The proof is
// checked first: an unproven sender learns nothing more than that.
func Verify(h board.Hook, secret string, header http.Header, body []byte, now time.Time) (Delivery, error) {
	if err := prove(h, secret, header, body, now); err != nil {
		return Delivery{}, err
	}
	id, err := deliveryID(h, header)
	if err != nil {
		return Delivery{}, err
	}
	payload, err := decode(header, body)
	if err != nil {
		return Delivery{}, err
	}
	return Delivery{ID: id, Event: eventOf(string(h.Scheme), header, payload), Payload: payload}, nil
}

// prove checks the scheme's signature or token.
func prove(h board.Hook, secret string, header http.Header, body []byte, now time.Time) error {
	switch h.Scheme {
	case board.HookGitHub:
		sig, ok := strings.CutPrefix(header.Get("X-Hub-Signature-256"), "sha256=")
		if !ok {
			return unverified("no X-Hub-Signature-256 header starting sha256=")
		}
		return checkMAC(secret, body, sig, "X-Hub-Signature-256")
	case board.HookGitea:
		sig := header.Get("X-Gitea-Signature")
		if sig == "" {
			sig = header.Get("X-Forgejo-Signature")
		}
		if sig == "" {
			return unverified("no X-Gitea-Signature header")
		}
		return checkMAC(secret, body, sig, "X-Gitea-Signature")
	case board.HookGitLab:
		tok := header.Get("X-Gitlab-Token")
		if tok == "" {
			return unverified("no X-Gitlab-Token header")
		}
		a, b := sha256.Sum256([]byte(tok)), sha256.Sum256([]byte(secret))
		if subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
			return unverified("X-Gitlab-Token is not the hook's secret")
		}
		return nil
	case board.HookHMAC:
		return proveGeneric(h, secret, header, body, now)
	}
	return unverified("unknown scheme %q", h.Scheme)
}

// proveGeneric checks the generic scheme: the signature header holds the
// hex HMAC-SHA256 (optionally after "sha256=") of
// "<timestamp>.<nonce>.<body>", the timestamp (unix seconds) within
// MaxSkew of now.
func proveGeneric(h board.Hook, secret string, header http.Header, body []byte, now time.Time) error {
	name := SignatureHeader(h)
	sig := strings.TrimPrefix(header.Get(name), "sha256=")
	ts, nonce := header.Get(TimestampHeader), header.Get(NonceHeader)
	if sig == "" || ts == "" || nonce == "" {
		return unverified("the generic scheme needs %s, %s and %s", name, TimestampHeader, NonceHeader)
	}
	msg := make([]byte, 0, len(ts)+len(nonce)+2+len(body))
	msg = append(append(append(append(append(msg, ts...), '.'), nonce...), '.'), body...)
	if err := checkMAC(secret, msg, sig, name); err != nil {
		return err
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return unverified("%s %q is not unix seconds", TimestampHeader, ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > MaxSkew || d < -MaxSkew {
		return unverified("%s is %s from the server's clock; at most %s is accepted (a replay, or a clock to set)", TimestampHeader, d.Round(time.Second), MaxSkew)
	}
	return nil
}

// SignatureHeader is the header a generic hook's signature comes in.
func SignatureHeader(h board.Hook) string {
	if h.Header != "" {
		return h.Header
	}
	return DefaultHeader
}

// checkMAC compares the hex HMAC-SHA256 of msg under secret with sig in
// constant time.
func checkMAC(secret string, msg []byte, sig, header string) error {
	got, err := hex.DecodeString(strings.TrimSpace(sig))
	if err != nil {
		return unverified("%s is not hex", header)
	}
	if !hmac.Equal(got, Sign(secret, msg)) {
		return unverified("%s does not match the body signed with the hook's secret", header)
	}
	return nil
}

// Sign returns the HMAC-SHA256 of msg under secret.
func Sign(secret string, msg []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(msg)
	return m.Sum(nil)
}

// deliveryID returns the sender's delivery id: required, so that a
// replay is told apart.
func deliveryID(h board.Hook, header http.Header) (string, error) {
	names := map[board.HookScheme][]string{
		board.HookGitHub: {"X-GitHub-Delivery"},
		board.HookGitea:  {"X-Gitea-Delivery", "X-Forgejo-Delivery"},
		board.HookGitLab: {"X-Gitlab-Event-UUID", "Idempotency-Key"},
		board.HookHMAC:   {NonceHeader},
	}[h.Scheme]
	for _, n := range names {
		if id := header.Get(n); id != "" {
			if len(id) > maxID || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return "", invalid("%s is longer than %d characters or holds control characters", n, maxID)
			}
			return id, nil
		}
	}
	return "", invalid("no %s header: a delivery without its id cannot be told from a replay", names[0])
}
