package web

import (
	"net/http"
	"strconv"
	"time"
)

// maxActivityRead is the most of a transcript one poll reads.
const maxActivityRead = 1 << 20

// ticketActivity streams a ticket's transcript as the agent writes it: every
// complete entry appended after the byte offset the page was rendered at
// (or after the last entry a reconnecting browser received), as a rendered
// "entry" event whose id is the offset after it. It follows the live file
// next to the transcript too, and sends the message being streamed as a
// "partial" event that replaces the previous one; an empty partial removes
// it once the complete message is in the transcript. The files are read by
// the ticket's hub, shared with every other stream of the ticket; a stream
// that starts behind its hub reads the entries it missed from the file.
func (s *Server) ticketActivity(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	t, err := s.store.Ticket(r.Context(), ref)
	if err != nil {
		return err
	}
	var offset int64
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("offset")} {
		if v == "" {
			continue
		}
		if offset, err = strconv.ParseInt(v, 10, 64); err != nil || offset < 0 {
			return badRequest("offset must be a byte offset: a whole number of 0 or more")
		}
		break
	}
	st, err := newStream(w)
	if err != nil {
		return nil
	}
	path := s.transcriptFile(r.Context(), t.ProjectID, t.ID)
	hub, sub, join := s.activity.join(path, offset, s.transcriptRefresh(t.ProjectID, t.ID))
	defer s.activity.leave(hub, sub)

	cursor, epoch, partialShown := offset, join.epoch, false
	sendEntry := func(ev activityEvent) error {
		if err := st.send(ev.end, "entry", ev.data); err != nil {
			return err
		}
		cursor = ev.end
		return nil
	}
	if cursor < join.offset {
		if catchUp(path, cursor, join.offset, s.renderTo, sendEntry) != nil {
			return nil
		}
		cursor = join.offset
	}
	if p := join.partial; p.shown && p.start == cursor {
		if st.send(0, "partial", p.data) != nil {
			return nil
		}
		partialShown = true
	}
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-ping.C:
			if st.ping() != nil {
				return nil
			}
			continue
		case ev, ok := <-sub.ch:
			if !ok { // fell behind: the browser reconnects from its last entry
				return nil
			}
			if ev.epoch != epoch { // the transcript was replaced
				epoch, cursor = ev.epoch, 0
			}
			switch {
			case ev.name == "entry":
				if ev.start < cursor {
					continue
				}
				err = sendEntry(ev)
			case !ev.shown: // removes the partial
				if partialShown {
					err = st.send(0, "partial", ev.data)
				}
				partialShown = false
			case ev.start == cursor:
				err = st.send(0, "partial", ev.data)
				partialShown = true
			}
			if err != nil {
				return nil
			}
		}
		ping.Reset(pingEvery)
	}
}
