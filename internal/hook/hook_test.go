package hook_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/hook"
)

const secret = "s3cret-for-the-tests"

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const labeled = `{"action":"labeled","label":{"name":"bonsai"},"issue":{"number":12,"title":"Fix the login",
"body":"It breaks.\n\n- [ ] works","html_url":"https://github.com/acme/w/issues/12","labels":[{"name":"bug"},{"name":"bonsai"}]}}`

func hookOf(scheme board.HookScheme) board.Hook {
	return board.Hook{Name: "h", ProjectSlug: "demo", Scheme: scheme, Secret: "sealed", Action: board.HookTicket, Title: "{{issue.title}}"}
}

// TestEachSchemeVerifies signs a delivery as each sender does and reads
// its id, event and payload back.
func TestEachSchemeVerifies(t *testing.T) {
	t.Parallel()
	events := map[board.HookScheme]string{board.HookGitHub: "issues.labeled", board.HookGitea: "issues.labeled",
		board.HookGitLab: "issues.labeled", board.HookHMAC: "issues.labeled"}
	for _, s := range board.HookSchemes() {
		t.Run(string(s), func(t *testing.T) {
			t.Parallel()
			h := hookOf(s)
			hd := hook.Headers(h, secret, "d-1", "issues", []byte(labeled), now)
			d, err := hook.Verify(h, secret, hd, []byte(labeled), now)
			if err != nil {
				t.Fatal(err)
			}
			if d.ID != "d-1" || d.Event != events[s] {
				t.Errorf("delivery %q event %q; want d-1 %s", d.ID, d.Event, events[s])
			}
			if title, _ := hook.Render("{{issue.title}}", d.Payload); title != "Fix the login" {
				t.Errorf("title %q", title)
			}
		})
	}
}

// TestBadSignaturesAreRefused: a wrong secret, a changed body, a missing
// or malformed header, each refused as unverified.
func TestBadSignaturesAreRefused(t *testing.T) {
	t.Parallel()
	for _, s := range board.HookSchemes() {
		t.Run(string(s), func(t *testing.T) {
			t.Parallel()
			h := hookOf(s)
			cases := map[string]func() (http.Header, []byte){
				"wrong secret": func() (http.Header, []byte) {
					return hook.Headers(h, "another-secret", "d", "issues", []byte(labeled), now), []byte(labeled)
				},
				"changed body": func() (http.Header, []byte) {
					return hook.Headers(h, secret, "d", "issues", []byte(labeled), now), []byte(strings.Replace(labeled, "12", "13", 1))
				},
				"no proof": func() (http.Header, []byte) {
					hd := hook.Headers(h, secret, "d", "issues", []byte(labeled), now)
					for _, k := range []string{"X-Hub-Signature-256", "X-Gitea-Signature", "X-Gitlab-Token", "X-Signature"} {
						hd.Del(k)
					}
					return hd, []byte(labeled)
				},
				"not hex": func() (http.Header, []byte) {
					hd := hook.Headers(h, secret, "d", "issues", []byte(labeled), now)
					for _, k := range []string{"X-Hub-Signature-256", "X-Gitea-Signature", "X-Gitlab-Token", "X-Signature"} {
						if hd.Get(k) != "" {
							hd.Set(k, "sha256=zz"+strings.Repeat("0", 62))
						}
					}
					return hd, []byte(labeled)
				},
			}
			if s == board.HookGitLab {
				delete(cases, "changed body") // GitLab's token does not sign the body
			}
			for name, mk := range cases {
				hd, body := mk()
				_, err := hook.Verify(h, secret, hd, body, now)
				var r *hook.Refusal
				if !errors.As(err, &r) || !r.Unverified || r.Status != http.StatusUnauthorized {
					t.Errorf("%s: %v; want an unverified refusal", name, err)
				}
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("%s: the refusal names the secret: %v", name, err)
				}
			}
		})
	}
}

// TestGenericNeedsAFreshTimestamp: the generic scheme's timestamp is
// signed, so an old delivery cannot be replayed with a new one, and one
// out of MaxSkew is refused.
func TestGenericNeedsAFreshTimestamp(t *testing.T) {
	t.Parallel()
	h := hookOf(board.HookHMAC)
	h.Header = "X-Acme-Signature"
	old := hook.Headers(h, secret, "n-1", "", []byte(labeled), now.Add(-hook.MaxSkew-time.Minute))
	_, err := hook.Verify(h, secret, old, []byte(labeled), now)
	if err == nil || !strings.Contains(err.Error(), "X-Hook-Timestamp is") {
		t.Errorf("stale delivery: %v", err)
	}
	fresh := hook.Headers(h, secret, "n-1", "", []byte(labeled), now)
	forged := old.Clone()
	forged.Set(hook.TimestampHeader, fresh.Get(hook.TimestampHeader))
	if _, err := hook.Verify(h, secret, forged, []byte(labeled), now); err == nil {
		t.Error("an old signature with a new timestamp verified")
	}
	if fresh.Get("X-Acme-Signature") == "" {
		t.Fatal("the configured header was not used")
	}
	noNonce := fresh.Clone()
	noNonce.Del(hook.NonceHeader)
	if _, err := hook.Verify(h, secret, noNonce, []byte(labeled), now); err == nil {
		t.Error("a generic delivery without a nonce verified")
	}
	if _, err := hook.Verify(h, secret, fresh, []byte(labeled), now); err != nil {
		t.Error(err)
	}
}

// TestMissingIDAndBadPayload: a verified delivery without its id, or
// with a body that is not JSON, is refused with a clear reason (400).
func TestMissingIDAndBadPayload(t *testing.T) {
	t.Parallel()
	h := hookOf(board.HookGitHub)
	hd := hook.Headers(h, secret, "d", "issues", []byte(labeled), now)
	hd.Del("X-GitHub-Delivery")
	_, err := hook.Verify(h, secret, hd, []byte(labeled), now)
	var r *hook.Refusal
	if !errors.As(err, &r) || r.Unverified || r.Status != 400 || !strings.Contains(r.Reason, "X-GitHub-Delivery") {
		t.Errorf("no delivery id: %v", err)
	}
	body := []byte("{not json")
	_, err = hook.Verify(h, secret, hook.Headers(h, secret, "d", "issues", body, now), body, now)
	if !errors.As(err, &r) || r.Status != 400 || !strings.Contains(r.Reason, "not JSON") {
		t.Errorf("bad payload: %v", err)
	}
}

func TestTemplateAndConditions(t *testing.T) {
	t.Parallel()
	h := hookOf(board.HookGitHub)
	d, err := hook.Verify(h, secret, hook.Headers(h, secret, "d", "issues", []byte(labeled), now), []byte(labeled), now)
	if err != nil {
		t.Fatal(err)
	}
	h.Description = "{{issue.body}}\n\nFrom {{issue.html_url}} (#{{ issue.number }})"
	h.Criteria = []string{"closes #{{issue.number}}", "{{issue.labels.1.name}}"}
	tk, err := hook.Ticket(h, d.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Title != "Fix the login" || !strings.HasSuffix(tk.Description, "issues/12 (#12)") ||
		strings.Join(tk.Criteria, "|") != "closes #12|bonsai" || tk.State != board.Backlog {
		t.Errorf("ticket %+v", tk)
	}
	h.Title = "{{issue.titel}}"
	_, err = hook.Ticket(h, d.Payload)
	var m *hook.MissingError
	if !errors.As(err, &m) || m.Path != "issue.titel" {
		t.Errorf("missing field: %v", err)
	}
	if why := hook.When(map[string]string{"label.name": "bonsai", "issue.labels.*.name": "bug"}, d.Payload); why != "" {
		t.Errorf("conditions that hold: %s", why)
	}
	if why := hook.When(map[string]string{"label.name": "other"}, d.Payload); why != `label.name is not "other"` {
		t.Errorf("failed condition: %q", why)
	}
	if !hook.Matches(nil, "x") || !hook.Matches([]string{"issues"}, "issues.labeled") || hook.Matches([]string{"issue"}, "issues.labeled") {
		t.Error("Matches")
	}
}
