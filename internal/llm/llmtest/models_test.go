package llmtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServer_ListsModelsInBothWireFormats(t *testing.T) {
	s := NewServer(t)
	s.SetModels("claude-sonnet-4-5", "gpt-5")
	code, body := get(t, s.URL+"/v1/models?limit=1000", map[string]string{"Anthropic-Version": "2023-06-01"})
	want := `{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"claude-sonnet-4-5","created_at":"2025-09-29T00:00:00Z"},` +
		`{"type":"model","id":"gpt-5","display_name":"gpt-5","created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"gpt-5"}`
	if code != 200 || body != want {
		t.Errorf("anthropic: %d %s\nwant %s", code, body, want)
	}
	code, body = get(t, s.URL+"/v1/models", nil)
	want = `{"object":"list","data":[{"id":"claude-sonnet-4-5","object":"model","created":1754524800,"owned_by":"llmtest"},` +
		`{"id":"gpt-5","object":"model","created":1754524800,"owned_by":"llmtest"}]}`
	if code != 200 || body != want {
		t.Errorf("openai: %d %s\nwant %s", code, body, want)
	}
	if code, _ := get(t, s.URL+"/models", nil); code != http.StatusNotFound {
		t.Errorf("a base URL without its root got %d, want 404", code)
	}
	if s.Remaining() != 0 || len(s.Requests()) != 2 {
		t.Errorf("model lists play no turn and are recorded: %d remaining, %d requests", s.Remaining(), len(s.Requests()))
	}
}

func TestServer_RequireKey(t *testing.T) {
	s := NewServer(t, ServerTurn{})
	s.RequireKey("k1")
	code, body := get(t, s.URL+"/v1/models", map[string]string{"Anthropic-Version": "2023-06-01", "X-Api-Key": "k2"})
	if code != 401 || body != `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CTest"}` {
		t.Errorf("anthropic: %d %s", code, body)
	}
	code, body = get(t, s.URL+"/v1/models", nil)
	if code != 401 || !strings.Contains(body, `"code":"invalid_api_key"`) {
		t.Errorf("openai: %d %s", code, body)
	}
	resp, _ := post(t, s.URL+"/v1/messages", `{"model":"claude-sonnet-4-5","stream":true}`)
	if resp.StatusCode != 401 || s.Remaining() != 1 {
		t.Errorf("a stream without the key: %d, %d turns left; want 401 and the turn kept", resp.StatusCode, s.Remaining())
	}
	if code, _ := get(t, s.URL+"/v1/models", map[string]string{"Authorization": "Bearer k1"}); code != 200 {
		t.Errorf("the right key got %d", code)
	}
	// Anthropic reads the key in X-Api-Key only.
	anth := map[string]string{"Anthropic-Version": "2023-06-01", "Authorization": "Bearer k1"}
	if code, _ := get(t, s.URL+"/v1/models", anth); code != 401 {
		t.Errorf("anthropic with a bearer key: %d", code)
	}
	anth = map[string]string{"Anthropic-Version": "2023-06-01", "X-Api-Key": "k1"}
	if code, _ := get(t, s.URL+"/v1/models", anth); code != 200 {
		t.Errorf("anthropic with X-Api-Key: %d", code)
	}
}
