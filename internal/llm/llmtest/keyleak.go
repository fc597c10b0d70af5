package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// KeyedFactory builds the Model under test with a given API key, talking
// to a server at baseURL (the server's root; the factory adds a path such
// as /v1 when its provider needs one).
type KeyedFactory func(t *testing.T, key, baseURL string) llm.Model

// RunKeyLeakContract checks that no error an adapter returns holds its API
// key when a provider or proxy echoes the request's headers back: in a
// non-2xx error body, and in an error event inside a 200 stream, before
// and after content. Every adapter runs it.
func RunKeyLeakContract(t *testing.T, newModel KeyedFactory) {
	const key = "sk-live-SECRET-0123456789"
	t.Run("error body", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			// The key is in Authorization or X-Api-Key, as the provider reads it.
			msg := strings.ReplaceAll("bad credentials in "+r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"), `"`, "")
			w.Write([]byte(`{"error":{"type":"authentication_error","message":"` + msg + `"}}`))
		}))
		defer srv.Close()
		_, _, err := collect(newModel(t, key, srv.URL))
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.KindAuth {
			t.Fatalf("err = %v, want an auth error", err)
		}
		if strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("error = %q, want the key redacted", err.Error())
		}
	})
	t.Run("error event in a 200 stream", func(t *testing.T) {
		for _, after := range []int{0, 3} {
			srv := NewServer(t, ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("partial answer")}},
				Cut: CutErrorEvent, CutAfter: after, ErrorType: "api_error", ErrorMessage: "upstream failed", EchoHeaders: true})
			evs, msg, err := collect(newModel(t, key, srv.URL))
			if err == nil || !strings.Contains(err.Error(), "upstream failed (request headers:") {
				t.Fatalf("err = %v, want the echoing error event", err)
			}
			all, _ := json.Marshal(evs)
			for what, s := range map[string]string{"error": err.Error(), "message": msg.ErrorMessage, "events": string(all)} {
				if strings.Contains(s, "SECRET") {
					t.Errorf("after %d events, the %s holds the key: %s", after, what, s)
				}
			}
			if !strings.Contains(err.Error(), "Bearer [redacted]") && !strings.Contains(err.Error(), "X-Api-Key: [redacted]") {
				t.Errorf("error = %q, want the key replaced by [redacted]", err.Error())
			}
		}
	})
}

// collect streams a one-message request and returns the events, the
// accumulated message and the stream's error.
func collect(m llm.Model) ([]llm.Event, llm.Message, error) {
	var evs []llm.Event
	var acc llm.Accumulator
	var err error
	for ev, e := range m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}) {
		evs = append(evs, ev)
		acc.Apply(ev)
		err = e
	}
	return evs, acc.Message(), err
}
