package hook

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Headers returns the headers h's sender would send with body: its
// signature or token made with secret, the delivery id id and the event
// (GitHub's "issues", Gitea's; GitLab reads its event from the payload).
// `bonsai hook test` and the tests sign deliveries with it.
func Headers(h board.Hook, secret, id, event string, body []byte, now time.Time) http.Header {
	hd := http.Header{"Content-Type": {"application/json"}}
	mac := func(msg []byte) string { return hex.EncodeToString(Sign(secret, msg)) }
	switch h.Scheme {
	case board.HookGitHub:
		hd.Set("X-Hub-Signature-256", "sha256="+mac(body))
		hd.Set("X-GitHub-Delivery", id)
		hd.Set("X-GitHub-Event", event)
	case board.HookGitea:
		hd.Set("X-Gitea-Signature", mac(body))
		hd.Set("X-Gitea-Delivery", id)
		hd.Set("X-Gitea-Event", event)
	case board.HookGitLab:
		hd.Set("X-Gitlab-Token", secret)
		hd.Set("X-Gitlab-Event-UUID", id)
		hd.Set("X-Gitlab-Event", event)
	default:
		ts := strconv.FormatInt(now.Unix(), 10)
		hd.Set(TimestampHeader, ts)
		hd.Set(NonceHeader, id)
		hd.Set(EventHeader, event)
		hd.Set(SignatureHeader(h), "sha256="+mac([]byte(ts+"."+id+"."+string(body))))
	}
	return hd
}

// SecretName is the name a hook's secret is sealed under: a sealed
// secret copied to another hook does not open.
func SecretName(hook string) string { return "hook/" + hook }
