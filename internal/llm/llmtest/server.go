package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Cut is a fault injected into a streamed response.
type Cut string

// The stream faults.
const (
	// CutReset drops the connection without ending the response.
	CutReset Cut = "reset"
	// CutMalformed sends one event whose data is not valid JSON.
	CutMalformed Cut = "malformed"
	// CutErrorEvent sends the provider's error event (Anthropic's
	// "event: error", OpenAI's data chunk with an "error" object, the
	// Responses API's "error" event with code and message) carrying
	// ErrorType and ErrorMessage, then ends the response.
	CutErrorEvent Cut = "error_event"
	// CutHang stops answering: with CutAfter 0 the server sends not even
	// the response headers; later, the stream just goes quiet. The handler
	// waits until the client goes away.
	CutHang Cut = "hang"
	// CutPings sends only keep-alives from then on (Anthropic's ping
	// event, an SSE comment for OpenAI's two APIs), one every few milliseconds, until
	// the client goes away.
	CutPings Cut = "pings"
	// CutEndless sends text deltas without end until the client goes away.
	CutEndless Cut = "endless"
)

// ServerTurn is one scripted HTTP response.
type ServerTurn struct {
	// Message is the response: its content parts in order, its stop reason
	// ("" means stop, or tool_use when it has tool calls) and its usage.
	// A thinking part's Signature is Anthropic's signature (or redacted
	// data) and the Responses API's encrypted_content.
	Message llm.Message
	// Chunk is the size in bytes of text, thinking and argument deltas
	// (default 16).
	Chunk int
	// Interleave streams the argument deltas of consecutive tool calls
	// round-robin (Chat Completions only), the way servers stream parallel
	// calls.
	Interleave bool

	// Status, when not 0, answers with this HTTP status and the provider's
	// error body built from ErrorType and ErrorMessage instead of a stream.
	Status int
	// ErrorType is Anthropic's error.type; for OpenAI, error.code, or
	// error.type when it ends in "_error"; for the Responses API's error
	// event and response.failed, the code. The default follows Status.
	ErrorType    string
	ErrorMessage string
	// RetryAfter is sent as the retry-after header when not empty.
	RetryAfter string

	// Cut, when set, breaks the stream after CutAfter events (data lines).
	Cut      Cut
	CutAfter int

	// Delay, when set, is how long the server waits before it answers,
	// as a model thinks (it stops waiting when the client goes away).
	Delay time.Duration

	// Recorded, when set, is the whole answer: a recorded event stream
	// (see [LoadRecording]) sent as it is, event by event, with status 200,
	// whatever the protocol; Message, Status and Cut are not used.
	Recorded []byte

	// EchoHeaders appends the request's headers, the key among them, to
	// the error message of an error status or an error event, as some
	// proxies do.
	EchoHeaders bool
}

// Request is a request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	// Body is the decoded JSON body (nil if it was not JSON).
	Body map[string]any
	// Raw is the body as received.
	Raw []byte
}

// Server is a fake model server speaking three streaming wire formats:
// POST /v1/messages (Anthropic), POST {root}/chat/completions (OpenAI Chat
// Completions) and POST {root}/responses (OpenAI Responses), where root is
// a path such as /v1, not empty. It plays one turn per request, whichever
// protocol asks. It also lists models (GET /v1/models, GET {root}/models)
// without playing a turn. Anything it cannot serve is answered with a 400 in the
// protocol's error shape.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:1234. Anthropic
	// clients use it as base URL; OpenAI clients use URL + "/v1".
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	turns    []ServerTurn
	requests []Request
	models   []string // nil: DefaultModels
	key      string   // when set, the only key accepted
	// reasoning, when set, is the field every assistant message with
	// tool calls must carry (Chat Completions), as DeepSeek requires.
	reasoning string
	// noSummary refuses Responses requests asking for reasoning
	// summaries, as OpenAI refuses unverified organisations.
	noSummary bool
}

// NewServer starts a server playing turns and closes it when t ends.
func NewServer(t testing.TB, turns ...ServerTurn) *Server {
	s := &Server{turns: turns}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Push appends turns to the script.
func (s *Server) Push(turns ...ServerTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining returns the number of turns not yet played.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	_ = json.Unmarshal(raw, &rec.Body)

	if proto, ok := modelsRoute(r); ok {
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		if !s.refuseKey(w, r, proto) {
			s.serveModels(w, proto)
		}
		return
	}
	var proto protocol
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		proto = anthropicProtocol{}
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions") && r.URL.Path != "/chat/completions":
		// A base URL without its API root (no /v1) misses, as on real servers.
		proto = openaiProtocol{}
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses") && r.URL.Path != "/responses":
		proto = responsesProtocol{}
	default:
		http.Error(w, "llmtest: no route for "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}

	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	if s.refuseKey(w, r, proto) || s.refuseReasoning(w, proto, rec.Body) || s.refuseSummary(w, proto, rec.Body) {
		return
	}
	s.mu.Lock()
	var turn ServerTurn
	ok := len(s.turns) > 0
	if ok {
		turn = s.turns[0]
		s.turns = s.turns[1:]
	}
	s.mu.Unlock()
	if !ok {
		turn = ServerTurn{Status: http.StatusBadRequest, ErrorMessage: "llmtest: no scripted turn left"}
	}
	if turn.Delay > 0 {
		select {
		case <-time.After(turn.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if turn.EchoHeaders {
		turn.ErrorMessage = strings.TrimSpace(turn.ErrorMessage + " (request headers: " + echo(r.Header) + ")")
	}
	if turn.Cut == CutHang && turn.CutAfter == 0 {
		<-r.Context().Done()
		return
	}
	if turn.RetryAfter != "" {
		w.Header().Set("retry-after", turn.RetryAfter)
	}
	if turn.Recorded != nil {
		playRecorded(w, turn.Recorded)
		return
	}
	if turn.Status != 0 {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(turn.Status)
		_, _ = w.Write(proto.errorBody(turn.Status, turn.ErrorType, turn.ErrorMessage))
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sw := &streamWriter{w: w, turn: turn, proto: proto, done: r.Context().Done()}
	proto.stream(sw, turn, rec.Body)
	sw.flush()
}

// protocol renders turns in one provider's wire format.
type protocol interface {
	errorBody(status int, errType, message string) []byte
	// stream plays turn as the answer to the request body req (nil when
	// it was not JSON).
	stream(w *streamWriter, turn ServerTurn, req map[string]any)
	errorEvent(w *streamWriter, errType, message string)
	// ping writes one keep-alive; filler writes one text delta.
	ping(w *streamWriter)
	filler(w *streamWriter)
}

// streamWriter writes SSE events and applies the turn's cut.
type streamWriter struct {
	w     http.ResponseWriter
	turn  ServerTurn
	n     int // data events written
	buf   bytes.Buffer
	cut   bool
	proto protocol
	done  <-chan struct{} // the request's end
}

// event writes one SSE event (name may be empty; data is marshalled to
// JSON unless it is a []byte) unless the stream was cut.
// It reports whether the stream goes on.
func (s *streamWriter) event(name string, data any) bool {
	if s.cut {
		return false
	}
	if s.turn.Cut != "" && s.n == s.turn.CutAfter {
		s.cut = true
		s.doCut(name)
		return false
	}
	b, ok := data.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(data); err != nil {
			panic(err)
		}
	}
	s.write(name, b)
	s.n++
	return true
}

func (s *streamWriter) write(name string, data []byte) {
	if name != "" {
		s.buf.WriteString("event: ")
		s.buf.WriteString(name)
		s.buf.WriteByte('\n')
	}
	s.buf.WriteString("data: ")
	s.buf.Write(data)
	s.buf.WriteString("\n\n")
	// Flush each event so clients see them one by one, as from a real server.
	s.flush()
}

func (s *streamWriter) flush() {
	if s.buf.Len() > 0 {
		_, _ = s.w.Write(s.buf.Bytes())
		s.buf.Reset()
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *streamWriter) doCut(name string) {
	switch s.turn.Cut {
	case CutReset:
		s.flush()
		// Aborting the handler closes the connection without the final
		// chunk, which clients see as an unexpected EOF.
		panic(http.ErrAbortHandler)
	case CutMalformed:
		s.write(name, []byte(`{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "oops`))
	case CutErrorEvent:
		s.proto.errorEvent(s, s.turn.ErrorType, s.turn.ErrorMessage)
	case CutHang:
		s.flush()
		<-s.done
	case CutPings:
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			s.proto.ping(s)
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	case CutEndless:
		for {
			s.proto.filler(s)
			select {
			case <-s.done:
				return
			default:
			}
		}
	}
}

// echo renders request headers the way a proxy's error page might.
func echo(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(k + ": " + strings.Join(h[k], ", "))
	}
	return b.String()
}

func stopReason(m llm.Message) llm.StopReason {
	if m.StopReason != "" {
		return m.StopReason
	}
	if len(m.ToolCalls()) > 0 {
		return llm.StopToolUse
	}
	return llm.StopEnd
}

func chunkSize(t ServerTurn) int {
	if t.Chunk <= 0 {
		return 16
	}
	return t.Chunk
}
