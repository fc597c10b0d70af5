package netproxy

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// hopByHop are the headers that belong to one connection, not to the
// request or response a proxy passes on (RFC 9110 section 7.6.1).
var hopByHop = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// stripHopByHop removes the hop-by-hop headers from h, including those
// its Connection header names.
func stripHopByHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopByHop {
		h.Del(name)
	}
}

// forward serves an absolute-form plain HTTP request.
func (s *Server) forward(w http.ResponseWriter, r *http.Request) {
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		reason := "not a proxy request: send absolute-form http:// requests, or CONNECT for https"
		if r.URL.Scheme == "https" {
			reason = "https:// requests must be tunneled with CONNECT"
		}
		s.refused(r.URL.Hostname(), portOf(r.URL.Host), reason)
		http.Error(w, "bonsai proxy: "+reason, http.StatusBadRequest)
		return
	}
	hostport := r.URL.Host
	if r.URL.Port() == "" {
		hostport = net.JoinHostPort(r.URL.Hostname(), "80")
	}
	t, err := parseTarget(hostport)
	if err != nil {
		s.refused(r.URL.Hostname(), portOf(hostport), "bad host: "+err.Error())
		http.Error(w, "bonsai proxy: bad host: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !s.allowed(t) {
		s.refuse(w, notListed(t))
		return
	}
	if r.Header.Get("Upgrade") != "" {
		reason := "protocol upgrades (WebSocket) are not forwarded over plain HTTP; use https (CONNECT)"
		s.refused(t.host(), t.port, reason)
		http.Error(w, "bonsai proxy: "+reason, http.StatusBadRequest)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), r.Body)
	if err != nil {
		http.Error(w, "bonsai proxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	out.Header = r.Header.Clone()
	stripHopByHop(out.Header)
	out.ContentLength = r.ContentLength
	if r.ContentLength == 0 {
		out.Body = nil
	}
	out.Host = r.Host
	resp, err := s.tr.RoundTrip(out)
	if err != nil {
		s.upstreamError(w, t, err)
		return
	}
	defer resp.Body.Close()
	stripHopByHop(resp.Header)
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	if resp.ContentLength >= 0 && resp.Header.Get("Content-Length") == "" && r.Method != http.MethodHead {
		w.Header().Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	w.WriteHeader(resp.StatusCode)
	fw := flushWriter{w, http.NewResponseController(w)}
	if _, err := io.Copy(fw, resp.Body); err != nil && !errors.Is(err, io.EOF) {
		// The client sees a cut body; nothing more to tell it.
		return
	}
}

// flushWriter flushes after every write, so a streamed response (a
// progress log, server-sent events) reaches the client as it comes.
type flushWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = f.rc.Flush()
	}
	return n, err
}
