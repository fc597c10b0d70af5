package agentrunner_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// cable is a TCP relay to a Postgres server that a test can cut, as a
// network does: every connection through it ends, and new ones are
// refused.
type cable struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

// lay returns the URL of u through a new cable.
func lay(t *testing.T, u string) (string, *cable) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := pu.Query()
	network, addr := "tcp", pu.Host
	if h := q.Get("host"); strings.HasPrefix(h, "/") {
		port := pu.Port()
		if port == "" {
			port = "5432"
		}
		network, addr = "unix", h+"/.s.PGSQL."+port
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cable{ln: ln}
	t.Cleanup(c.cut)
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial(network, addr)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	q.Del("host")
	pu.RawQuery = q.Encode()
	pu.Host = ln.Addr().String()
	return pu.String(), c
}

// cut ends every connection and refuses new ones.
func (c *cable) cut() {
	c.ln.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
}

// TestShared_LostStoreStopsTheRun: a worker that loses the store in the
// middle of a run stops it (the answer it could not store is in neither
// the store nor its file); once its lease runs out, another machine
// resumes the ticket from the stored transcript.
func TestShared_LostStoreStopsTheRun(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	through, c := lay(t, u)
	a, b := newMachine(t, through, "a"), newMachine(t, u, "b")
	a.opts.LeaseTTL, b.opts.LeaseTTL = 2*time.Second, 2*time.Second
	tk := sharedTicket(t, b.db)

	hold := make(chan struct{})
	turn := say("Lost with the store.")
	turn.Wait = hold
	a.model.Push(turn)
	go func() {
		defer close(hold)
		for len(a.model.Requests()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		c.cut()
	}()
	h, err := heartbeat.New(a.opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := h.Beat(context.Background()) // the beat's own writes fail too
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunError || !strings.Contains(rep.Runs[0].Error, "store the transcript") {
		t.Fatalf("the run on A = %+v, want an error saying the transcript could not be stored", rep.Runs)
	}
	if bytes.Contains(stored(t, b.db, tk), []byte("Lost with the store.")) || bytes.Contains(a.file(t, tk), []byte("Lost with the store.")) {
		t.Fatal("the answer A could not store is in the store or A's file")
	}

	b.model.Push(say("Resumed on B."))
	var r heartbeat.RunReport
	for range 100 { // until A's lease runs out
		h, err := heartbeat.New(b.opts)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := h.Beat(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) == 1 && rep.Runs[0].Skipped == "" {
			r = rep.Runs[0]
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r.Status != board.RunCompleted {
		t.Fatalf("the run on B = %+v", r)
	}
	msgs := b.model.Requests()[0].Messages
	if len(msgs) != 2 || !strings.Contains(msgs[0].Text(), "demo#1") || msgs[1].Role != llm.RoleUser {
		t.Errorf("B's request does not carry A's task and then its own: %d messages", len(msgs))
	}
	if got, want := b.file(t, tk), stored(t, b.db, tk); !bytes.Equal(got, want) {
		t.Error("B's file is not the store's transcript")
	}
	// A could not record how its run ended; its lease's end did.
	runs, err := b.db.Runs(context.Background(), tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[1].Status != board.RunInterrupted || runs[0].Status != board.RunCompleted {
		t.Errorf("runs = %+v, want A's interrupted and B's completed", runs)
	}
}
