package openai_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// TestModel_ErrorHidesAPIKey talks to a server that echoes the request's
// Authorization header in its error, as some proxies do: the error the
// runtime logs and posts on the ticket must not hold the key.
func TestModel_ErrorHidesAPIKey(t *testing.T) {
	const key = "sk-live-SECRET-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		msg := strings.ReplaceAll("bad credentials in "+r.Header.Get("Authorization"), `"`, "")
		w.Write([]byte(`{"error":{"type":"authentication_error","message":"` + msg + `"}}`))
	}))
	defer srv.Close()
	m := openai.New(openai.Config{Model: "gpt-5", APIKey: key, BaseURL: srv.URL + "/v1"})
	_, _, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindAuth {
		t.Fatalf("err = %v, want an auth error", err)
	}
	if strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "bad credentials in Bearer [redacted]") {
		t.Errorf("error = %q, want the key redacted", err.Error())
	}
}

// TestModel_ErrorChunkHidesAPIKey: a proxy answers 200 text/event-stream
// and then sends a data chunk with an error object whose message echoes
// the request's headers. Neither the error, nor the partial message, nor
// any event may hold the key.
func TestModel_ErrorChunkHidesAPIKey(t *testing.T) {
	const key = "sk-proj-SECRET-0123456789"
	for _, after := range []int{0, 3} {
		srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("partial answer")}},
			Cut: llmtest.CutErrorEvent, CutAfter: after, ErrorMessage: "upstream failed", EchoHeaders: true})
		m := openai.New(openai.Config{Model: "gpt-5", APIKey: key, BaseURL: srv.URL + "/v1"})
		evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
		if err == nil || !strings.Contains(err.Error(), "upstream failed (request headers:") {
			t.Fatalf("err = %v, want the echoing error chunk", err)
		}
		all, _ := json.Marshal(evs)
		for what, s := range map[string]string{"error": err.Error(), "message": msg.ErrorMessage, "events": string(all)} {
			if strings.Contains(s, "SECRET") {
				t.Errorf("after %d events, the %s holds the key: %s", after, what, s)
			}
		}
		if !strings.Contains(err.Error(), "Bearer [redacted]") {
			t.Errorf("error = %q, want the key replaced by [redacted]", err.Error())
		}
	}
}
