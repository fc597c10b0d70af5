package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// gateway is a run's loopback door to the model server: the engine gets
// its URL and a token made for the run instead of the provider's key,
// and the gateway forwards each request with the real key. The CLI
// passes its environment to the commands the model runs, so the key
// itself never reaches it; the token dies with the run.
type gateway struct {
	srv      *http.Server
	cancel   context.CancelFunc // ends the upstream requests
	tr       *http.Transport    // the run's own connections upstream
	endpoint Endpoint           // what the engine is given
}

// rejectedKey is how the gateway reports that the provider refused the
// key: the engines retry such errors for minutes, so the run ends at the
// second refusal in a row.
type rejectedKey struct {
	Status  int
	Message string
}

func (e *rejectedKey) Error() string {
	return fmt.Sprintf("the provider rejected the API key (HTTP %d): %s", e.Status, e.Message)
}

// serveGateway starts the gateway to ep; onRejected (nil: none) is
// called when the provider refused the key twice in a row. ended (nil:
// never) reports that a board tool ended the run: from then on no model
// request is forwarded, since a CLI sends its next one as soon as the
// tool's result is in, often before the run stops it.
func serveGateway(ep Endpoint, onRejected func(*rejectedKey), ended func() bool) (*gateway, error) {
	target, err := url.Parse(ep.BaseURL)
	if err != nil || target.Host == "" {
		return nil, fmt.Errorf("the base URL %q of provider %s is not a URL", ep.BaseURL, ep.Provider)
	}
	var tok [24]byte
	_, _ = rand.Read(tok[:])
	token := "bonsai-run-" + hex.EncodeToString(tok[:])
	life, cancel := context.WithCancel(context.Background())
	tr := http.DefaultTransport.(*http.Transport).Clone()
	refused := &refusals{}
	routes := modelRoutes(ep.Wire, target.Path)
	proxy := &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(r *httputil.ProxyRequest) {
			// An upstream request lives as long as the gateway, not as
			// the engine's connection says: its streams were cut now and
			// then when they followed the incoming request's context.
			r.Out = r.Out.WithContext(life)
			r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = target.Scheme, target.Host, target.Host
			r.Out.URL.RawPath = "" // the path was checked unescaped
			r.Out.Header.Del("x-api-key")
			r.Out.Header.Del("Authorization")
			if ep.Key != "" {
				if ep.Wire == llm.WireAnthropicMessages {
					r.Out.Header.Set("x-api-key", ep.Key)
				} else {
					r.Out.Header.Set("Authorization", "Bearer "+ep.Key)
				}
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			refused.note(resp, onRejected)
			return nil
		},
		// Streamed responses go through event by event.
		FlushInterval: -1,
		// A response cut by the end of the run is no news.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("x-api-key")
		if got == "" {
			got = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"not this run's token"}}`, http.StatusUnauthorized)
			return
		}
		if !routes.allow(r) {
			// The key serves model requests only, not the rest of the
			// provider's API (files, batches, fine-tuning, admin), and
			// only under the exact path it was asked for.
			http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"Bonsai's gateway forwards model requests only"}}`, http.StatusNotFound)
			return
		}
		if ended != nil && ended() {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"the run has ended: a board tool ended it"}}`, http.StatusBadRequest)
			return
		}
		// The request is read whole first: streaming it upstream while
		// the response streams back cut responses now and then.
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
		if err != nil || len(body) > maxRequest {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"request unreadable or over 64 MiB"}}`, http.StatusRequestEntityTooLarge)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		return nil, err
	}
	g := &gateway{srv: &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}, tr: tr, cancel: cancel}
	go func() { _ = g.srv.Serve(ln) }()
	g.endpoint = ep
	g.endpoint.BaseURL = "http://" + ln.Addr().String() + strings.TrimSuffix(target.Path, "/")
	g.endpoint.Key = token
	return g, nil
}

// Close stops the gateway, cutting what still streams.
func (g *gateway) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = g.srv.Shutdown(ctx)
	g.cancel()
	_ = g.srv.Close()
	g.tr.CloseIdleConnections()
}

// maxRequest bounds a model request the gateway reads.
const maxRequest = 64 << 20

// refusals counts the provider's key refusals in a row.
type refusals struct {
	mu sync.Mutex
	n  int
}

// note counts resp: a 401 or 403 adds one, anything else starts again;
// the second in a row is reported with the provider's message.
func (r *refusals) note(resp *http.Response, report func(*rejectedKey)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		r.n = 0
		return
	}
	r.n++
	if r.n < 2 || report == nil {
		return
	}
	// The body is small JSON; read it for the message and put it back.
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &body) == nil && body.Error.Message != "" {
		msg = body.Error.Message
	}
	report(&rejectedKey{Status: resp.StatusCode, Message: cut(msg, 300)})
}
