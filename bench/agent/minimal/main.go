// Command minimal is the floor `bonsai run` is measured against: the same
// HTTP round trips to an Anthropic-style streaming endpoint and the same
// fsynced transcript writes, with nothing else.
//
//	minimal -url URL -transcript FILE [-turns N -file PATH]
//
// With -turns it plays a session of N tool turns: each response asks to
// read -file, which it reads, numbers and sends back in the next request.
// It prints one line per turn so the harness can time them.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
)

func main() {
	url := flag.String("url", "", "server root")
	transcript := flag.String("transcript", "", "transcript file to write")
	turns := flag.Int("turns", 0, "tool turns to play")
	file := flag.String("file", "", "file each tool turn reads")
	flag.Parse()
	f, err := os.OpenFile(*transcript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	write := func(v any) {
		b, _ := json.Marshal(v)
		f.Write(append(b, '\n'))
	}
	record := func(v any) {
		write(v)
		if err := f.Sync(); err != nil {
			log.Fatal(err)
		}
	}
	// Like the session file, the header is flushed with the first message.
	write(map[string]any{"type": "session", "version": 1})
	msgs := []map[string]any{{"role": "user", "content": "hello"}}
	record(msgs[0])
	for turn := 0; ; turn++ {
		text, calls := request(*url, msgs)
		content := []map[string]any{}
		if text != "" {
			content = append(content, map[string]any{"type": "text", "text": text})
		}
		for _, c := range calls {
			content = append(content, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.input)})
		}
		asst := map[string]any{"role": "assistant", "content": content}
		record(asst)
		msgs = append(msgs, asst)
		if len(calls) == 0 || turn >= *turns {
			fmt.Println(text)
			return
		}
		var results []map[string]any
		for _, c := range calls {
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": c.id, "content": numbered(*file)})
		}
		res := map[string]any{"role": "user", "content": results}
		record(res)
		msgs = append(msgs, res)
		fmt.Println("turn", turn+1)
	}
}

type call struct{ id, name, input string }

// request posts the conversation and reads the streamed answer.
func request(url string, msgs []map[string]any) (string, []call) {
	body, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 8192, "stream": true, "messages": msgs})
	req, _ := http.NewRequest("POST", url+"/v1/messages", bytes.NewReader(body))
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", "test-key")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var text strings.Builder
	var calls []call
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string
			ContentBlock struct{ Type, ID, Name string } `json:"content_block"`
			Delta        struct {
				Type, Text  string
				PartialJSON string `json:"partial_json"`
			}
		}
		if json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "content_block_start" && ev.ContentBlock.Type == "tool_use":
			calls = append(calls, call{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name})
		case ev.Delta.Type == "text_delta":
			text.WriteString(ev.Delta.Text)
		case ev.Delta.Type == "input_json_delta" && len(calls) > 0:
			calls[len(calls)-1].input += ev.Delta.PartialJSON
		}
	}
	return text.String(), calls
}

// numbered returns the file with line numbers, as the read tool shows it.
func numbered(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var out strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		fmt.Fprintf(&out, "%4d\t%s\n", i+1, line)
	}
	return out.String()
}
