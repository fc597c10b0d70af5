package llmtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"testing"
)

// LoadRecording reads a recorded event stream (testdata, SSE as the server
// sent it) for a [ServerTurn]'s Recorded field.
func LoadRecording(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// playRecorded sends a recorded SSE body with status 200, one event (the
// lines up to a blank line) at a time, flushed, as the server sent it.
func playRecorded(w http.ResponseWriter, body []byte) {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	for len(body) > 0 {
		ev, rest, found := bytes.Cut(body, []byte("\n\n"))
		if found {
			ev = append(ev, "\n\n"...)
		}
		_, _ = w.Write(ev)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		body = rest
	}
}

// summaryRefusal is OpenAI's answer to a request asking for reasoning
// summaries from an organisation that is not verified.
const summaryRefusal = "Your organization must be verified to generate reasoning summaries. " +
	"Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. " +
	"If you just verified, it can take up to 15 minutes for access to propagate."

// RefuseReasoningSummary makes the server answer a Responses request that
// sets reasoning.summary with HTTP 400, code unsupported_value and param
// reasoning.summary, as OpenAI answers organisations that are not
// verified; false accepts such requests again. The request uses up no
// turn.
func (s *Server) RefuseReasoningSummary(refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noSummary = refuse
}

// refuseSummary answers a request asking for reasoning summaries the
// organisation may not have, and reports whether it did.
func (s *Server) refuseSummary(w http.ResponseWriter, proto protocol, body map[string]any) bool {
	s.mu.Lock()
	refuse := s.noSummary
	s.mu.Unlock()
	r, _ := body["reasoning"].(map[string]any)
	if _, ok := proto.(responsesProtocol); !ok || !refuse || r == nil || r["summary"] == nil {
		return false
	}
	b, _ := json.Marshal(obj{{"error", obj{{"message", summaryRefusal}, {"type", "invalid_request_error"},
		{"param", "reasoning.summary"}, {"code", "unsupported_value"}}}})
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
	return true
}
