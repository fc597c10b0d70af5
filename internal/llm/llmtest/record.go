package llmtest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Replay is a transport that answers every request with one recorded
// event-stream body: adapter benchmarks and fuzz targets decode the same
// bytes again and again without a server.
type Replay []byte

// RoundTrip implements http.RoundTripper.
func (r Replay) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(r)), Request: req}, nil
}

// Record returns the bytes the fake server answers for turn when it is
// sent reqBody at path ("/v1/messages", "/v1/chat/completions").
func Record(tb testing.TB, path, reqBody string, turn ServerTurn) []byte {
	tb.Helper()
	srv := NewServer(tb, turn)
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(reqBody))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// LongResponse is 2,000 text deltas of 16 bytes and a tool call (with the
// given id) whose 32 KB of arguments arrive in 2,000 more deltas: the
// decoding benchmarks' answer.
func LongResponse(callID string) llm.Message {
	return llm.Message{Content: []llm.Part{
		llm.Text(strings.Repeat("All work and no.", 2000)),
		llm.ToolCall(callID, "write", []byte(`{"path":"a.txt","content":"`+strings.Repeat("x", 32000-30)+`"}`)),
	}, Usage: &llm.Usage{Input: 1000, Output: 9000}}
}

// Drain is a transport that reads the whole request body, as a real server
// does, then answers with one recorded body: benchmarks of the request side
// pay for sending it.
type Drain []byte

// RoundTrip implements http.RoundTripper.
func (r Drain) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, err := io.Copy(io.Discard, req.Body); err != nil {
		return nil, err
	}
	return Replay(r).RoundTrip(req)
}
