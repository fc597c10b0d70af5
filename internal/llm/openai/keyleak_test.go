package openai_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
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
