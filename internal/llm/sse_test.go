package llm_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestSSEReader_Events(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the read buffer
	tests := []struct {
		name string
		in   string
		want []string // "event|data"
	}{
		{"anthropic style", "event: ping\ndata: {\"type\":\"ping\"}\n\nevent: message_stop\ndata: {}\n\n",
			[]string{"ping|{\"type\":\"ping\"}", "message_stop|{}"}},
		{"data only, [DONE]", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{"|{\"a\":1}", "|[DONE]"}},
		{"crlf and comments", ": keep-alive\r\n\r\nevent:x\r\ndata:1\r\n\r\n", []string{"x|1"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"|a\nb"}},
		{"empty data line", "data:\n\n", []string{"|"}},
		{"unfinished event dropped", "data: a\n\ndata: b", []string{"|a"}},
		{"long line", "data: " + long + "\n\n", []string{"|" + long}},
		{"id and retry ignored", "id: 7\nretry: 100\ndata: z\n\n", []string{"|z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := llm.NewSSEReader(iotest.OneByteReader(strings.NewReader(tt.in)))
			var got []string
			for r.Next() {
				got = append(got, string(r.Event())+"|"+string(r.Data()))
			}
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSSEReader_ReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := llm.NewSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)))
	if !r.Next() || string(r.Data()) != "a" {
		t.Fatalf("first event: %q", r.Data())
	}
	if r.Next() {
		t.Fatalf("event %q after the error", r.Data())
	}
	if !errors.Is(r.Err(), boom) {
		t.Errorf("err = %v", r.Err())
	}
}

// FuzzSSEReader compares the reader with a plain reading of the format:
// split into lines (text after the last newline is a line too, as
// bufio.Scanner reads it), dispatch at blank lines, drop an unfinished
// event.
func FuzzSSEReader(f *testing.F) {
	f.Add("event: a\ndata: 1\n\n")
	f.Add("data: x\r\ndata:y\r\n\r\n: c\n\ndata: [DONE]\n\n")
	f.Add("event:e\n\nid: 1\ndata\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		var want []string
		lines := strings.Split(in, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		event, data, hasData := "", "", false
		for _, l := range lines {
			l = strings.TrimSuffix(l, "\r")
			if l == "" {
				if event != "" || hasData {
					want = append(want, event+"|"+data)
				}
				event, data, hasData = "", "", false
				continue
			}
			name, value, _ := strings.Cut(l, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "event":
				event = value
			case "data":
				if hasData {
					data += "\n"
				}
				data += value
				hasData = true
			}
		}
		r := llm.NewSSEReader(strings.NewReader(in))
		var got []string
		for r.Next() {
			got = append(got, string(r.Event())+"|"+string(r.Data()))
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("events %q, want %q", got, want)
		}
	})
}
