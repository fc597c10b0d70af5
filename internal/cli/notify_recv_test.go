package cli_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bonsai-run/bonsai/internal/notify"
)

// hookReceiver is a webhook receiver for scripts: it records each request
// and answers the first `fail` of them with a 500, and any request under
// /services/ with a 404, as Slack answers for a deleted webhook.
type hookReceiver struct {
	secret string
	mu     sync.Mutex
	fail   int
	reqs   []hookRequest
}

type hookRequest struct {
	sig, delivery, event string
	body                 []byte
}

var (
	hookMu  sync.Mutex
	hookSrv = map[string]*hookReceiver{} // by the script's WORK
)

// cmdHookRecv drives a webhook receiver in the test process:
//
//	hookrecv start <secret>   start it; HOOK_URL is its URL
//	hookrecv fail <n>         answer the next n requests with a 500
//	hookrecv dump             print one line per request: the signature's
//	                          check (sig=ok or sig=bad), the delivery ID,
//	                          the event and the body
func cmdHookRecv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: hookrecv start <secret> | fail <n> | dump")
	}
	key := ts.Getenv("WORK")
	hookMu.Lock()
	r := hookSrv[key]
	hookMu.Unlock()
	switch args[0] {
	case "start":
		if len(args) != 2 {
			ts.Fatalf("usage: hookrecv start <secret>")
		}
		r = &hookReceiver{secret: args[1]}
		srv := httptest.NewServer(http.HandlerFunc(r.serve))
		hookMu.Lock()
		hookSrv[key] = r
		hookMu.Unlock()
		ts.Defer(func() {
			srv.Close()
			hookMu.Lock()
			delete(hookSrv, key)
			hookMu.Unlock()
		})
		ts.Setenv("HOOK_URL", srv.URL+"/bonsai")
	case "fail":
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		r.mu.Lock()
		r.fail = n
		r.mu.Unlock()
	case "dump":
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, q := range r.reqs {
			check := "bad"
			if q.sig == notify.Sign(r.secret, q.body) {
				check = "ok"
			}
			fmt.Fprintf(ts.Stdout(), "sig=%s delivery=%s event=%s %s\n", check, q.delivery, q.event, q.body)
		}
	default:
		ts.Fatalf("hookrecv: unknown verb %q", args[0])
	}
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, hookRequest{sig: req.Header.Get(notify.SignatureHeader),
		delivery: req.Header.Get("X-Bonsai-Delivery"), event: req.Header.Get("X-Bonsai-Event"), body: body})
	fail := r.fail > 0
	if fail {
		r.fail--
	}
	r.mu.Unlock()
	switch {
	case strings.HasPrefix(req.URL.Path, "/services/"): // as Slack answers a deleted webhook
		http.Error(w, "no_service", http.StatusNotFound)
	case fail:
		http.Error(w, "try later", http.StatusInternalServerError)
	}
}
