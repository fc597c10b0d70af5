package web

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// parseSSE splits an event stream the way a browser does (EventSource):
// lines end at CRLF, LF or a lone CR; a blank line dispatches an event.
func parseSSE(body string) (events []map[string]string) {
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
	cur := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" {
			if len(cur) > 0 {
				events = append(events, cur)
			}
			cur = map[string]string{}
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		if k == "data" && cur["data"] != "" {
			v = cur["data"] + "\n" + v
		}
		cur[k] = v
	}
	return events
}

// TestStream_CarriageReturnCannotAddFields sends data holding lone CRs, as a
// tool result may: the browser must see one event of the given type, with
// no id or retry field smuggled in.
func TestStream_CarriageReturnCannotAddFields(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	st, err := newStream(rec)
	if err != nil {
		t.Fatal(err)
	}
	data := "<pre>ok\r\rid: 999999\revent: card\rretry: 1\rdata: x</pre>\r\nend"
	if err := st.send(7, "entry", data); err != nil {
		t.Fatal(err)
	}
	var got []map[string]string
	for _, ev := range parseSSE(rec.Body.String()) {
		if _, ok := ev["retry"]; ok && len(ev) == 1 {
			continue // the stream's own opening retry
		}
		got = append(got, ev)
	}
	if len(got) != 1 {
		t.Fatalf("the browser sees %d events, want 1: %q", len(got), got)
	}
	ev := got[0]
	if ev["id"] != "7" || ev["event"] != "entry" || ev["retry"] != "" {
		t.Errorf("fields = %q, want id 7, event entry, no retry", ev)
	}
	if want := "<pre>ok\n\nid: 999999\nevent: card\nretry: 1\ndata: x</pre>\nend"; ev["data"] != want {
		t.Errorf("data = %q, want %q", ev["data"], want)
	}
}
