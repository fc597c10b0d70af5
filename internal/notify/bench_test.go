package notify_test

import (
	"fmt"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
)

// BenchmarkDeliverEmpty is what each of a heartbeat's two delivery passes
// costs when nothing is due: one claim that finds nothing.
func BenchmarkDeliverEmpty(b *testing.B) {
	e := newEnv(b)
	e.channel(board.Channel{Name: "hook", Kind: board.ChannelWebhook, Settings: map[string]string{"url": "http://127.0.0.1:1/", "secret": "k"}})
	d := e.deliverer(e.st, notify.Options{})
	for b.Loop() {
		if _, err := d.Deliver(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQuestion is an agent's question with 0 and 3 channels: the
// cost the events_notify trigger adds to the event's transaction.
func BenchmarkQuestion(b *testing.B) {
	for _, n := range []int{0, 3} {
		b.Run(fmt.Sprintf("channels=%d", n), func(b *testing.B) {
			e := newEnv(b)
			for i := range n {
				e.channel(board.Channel{Name: fmt.Sprint("c", i), Kind: board.ChannelDesktop})
			}
			c := board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: "which port?"}
			for b.Loop() {
				if _, err := e.st.AddComment(b.Context(), e.tk.Ref(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
