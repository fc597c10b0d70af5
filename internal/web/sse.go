package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// pingEvery is how often an idle event stream sends a comment, so proxies
// and browsers keep the connection open.
const pingEvery = 15 * time.Second

// stream writes Server-Sent Events.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// newStream starts an event stream response.
func newStream(w http.ResponseWriter) (*stream, error) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w)}
	// Tell the browser to wait a second before reconnecting.
	if _, err := fmt.Fprint(w, "retry: 1000\n\n"); err != nil {
		return nil, err
	}
	return st, st.rc.Flush()
}

// send writes one event; data may span lines. It writes data in place,
// line by line, so a large event costs no copies of it.
func (st *stream) send(id int64, event, data string) error {
	var head strings.Builder
	if id > 0 {
		fmt.Fprintf(&head, "id: %d\n", id)
	}
	if event != "" {
		fmt.Fprintf(&head, "event: %s\n", event)
	}
	if _, err := io.WriteString(st.w, head.String()); err != nil {
		return err
	}
	// A lone CR ends a line in an event stream as LF does: split on both,
	// or a CR in a tool result could end the event and start fields of
	// its own (id:, event:, retry:).
	for {
		i := strings.IndexAny(data, "\r\n")
		line := data
		if i >= 0 {
			line = data[:i]
		}
		if _, err := io.WriteString(st.w, "data: "); err != nil {
			return err
		}
		if _, err := io.WriteString(st.w, line); err != nil {
			return err
		}
		if _, err := io.WriteString(st.w, "\n"); err != nil {
			return err
		}
		if i < 0 {
			break
		}
		if strings.HasPrefix(data[i:], "\r\n") {
			i++
		}
		data = data[i+1:]
	}
	if _, err := io.WriteString(st.w, "\n"); err != nil {
		return err
	}
	return st.rc.Flush()
}

func (st *stream) ping() error {
	if _, err := st.w.Write([]byte(": ping\n\n")); err != nil {
		return err
	}
	return st.rc.Flush()
}

// startCursor is where a stream starts: the Last-Event-ID of a reconnecting
// browser, else the after parameter, else the feed's current end.
func (s *Server) startCursor(r *http.Request) (int64, error) {
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, badRequest(fmt.Sprintf("event cursor %q must be a whole number of 0 or more", v))
		}
		return n, nil
	}
	return s.feed.cursor(), nil
}

// follow calls send for every event after cursor, in order, until ctx is
// done or send fails. It reads from the feed's ring, or from the store when
// the cursor is older than the ring, and pings while idle.
func (s *Server) follow(ctx context.Context, st *stream, cursor int64, send func(item) error) error {
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		items, wake, ok := s.feed.since(cursor)
		if !ok {
			es, err := s.store.Events(ctx, cursor, pageSize)
			if err != nil {
				return err
			}
			items = make([]item, len(es))
			for i, e := range es {
				items[i].Event = e
			}
		}
		for _, it := range items {
			if err := send(it); err != nil {
				return err
			}
			cursor = it.Event.ID
		}
		if len(items) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-ping.C:
			if err := st.ping(); err != nil {
				return err
			}
		}
	}
}
