package llmtest

import (
	"net/http"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// A recorded turn is answered as it was recorded, whatever the protocol
// asked, and uses up its turn.
func TestServer_Recorded(t *testing.T) {
	rec := "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\n" +
		"event: error\ndata: {\"type\":\"error\",\"code\":\"insufficient_quota\",\"sequence_number\":1}\n\n"
	s := NewServer(t, ServerTurn{Recorded: []byte(rec)})
	resp, body := post(t, s.URL+"/v1/responses", `{"model":"gpt-5","stream":true}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("content-type") != "text/event-stream" || body != rec {
		t.Errorf("status %d, content-type %q, body\n%s", resp.StatusCode, resp.Header.Get("content-type"), body)
	}
	if s.Remaining() != 0 {
		t.Errorf("%d turns left", s.Remaining())
	}
}

// RefuseReasoningSummary answers a Responses request asking for summaries
// as OpenAI answers an unverified organisation, without using up a turn;
// requests without a summary, and Chat Completions, are served.
func TestServer_RefuseReasoningSummary(t *testing.T) {
	s := NewServer(t, ServerTurn{Message: hi()}, ServerTurn{Message: hi()})
	s.RefuseReasoningSummary(true)
	resp, body := post(t, s.URL+"/v1/responses", `{"model":"gpt-5","stream":true,"reasoning":{"effort":"low","summary":"auto"}}`)
	want := `{"error":{"message":"Your organization must be verified to generate reasoning summaries. ` +
		`Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. ` +
		`If you just verified, it can take up to 15 minutes for access to propagate.",` +
		`"type":"invalid_request_error","param":"reasoning.summary","code":"unsupported_value"}}`
	if resp.StatusCode != http.StatusBadRequest || body != want || s.Remaining() != 2 {
		t.Errorf("status %d, %d turns left, body\n%s\nwant\n%s", resp.StatusCode, s.Remaining(), body, want)
	}
	for _, path := range []string{"/v1/responses", "/v1/chat/completions"} {
		if resp, body := post(t, s.URL+path, `{"model":"gpt-5","stream":true,"reasoning":{"effort":"low"}}`); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d: %s", path, resp.StatusCode, body)
		}
	}
}

func hi() llm.Message { return llm.Message{Content: []llm.Part{llm.Text("Hi")}} }
