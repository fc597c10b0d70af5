package main

import (
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// sandboxSession measures what the sandbox adds to each turn of a session
// whose every turn runs a command (issue 12: per-turn cost of a 50-turn
// session with the sandbox): the same session of `bash true` turns with
// `bonsai run`'s commands on the host, in bubblewrap without network, and
// in bubblewrap with the host's network.
func (e *env) sandboxSession(sessions, turns int) error {
	push := func() {
		for i := range turns {
			id := fmt.Sprintf("toolu_%02d", i)
			e.srv.Push(llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant,
				Content: []llm.Part{llm.ToolCall(id, "bash", []byte(`{"command":"true"}`))},
				Usage:   &llm.Usage{Input: 1000, Output: 10}}})
		}
		e.srv.Push(text("Ran it fifty times."))
	}
	modes := []struct {
		name string
		args []string
	}{
		{"host", nil},
		{"sandbox, network none", []string{"--sandbox", "--network", "none"}},
		{"sandbox, network all", []string{"--sandbox", "--network", "all"}},
	}
	walls := make([][]time.Duration, len(modes))
	for range sessions {
		for i, m := range modes {
			push()
			args := append([]string{"run", "--mode", "json"}, m.args...)
			r, err := e.exec(e.bonsai, append(args, "run true again and again")...)
			if err != nil {
				return err
			}
			walls[i] = append(walls[i], r.wall)
		}
	}
	fmt.Printf("%d-turn session, each turn runs `bash true` (%d sessions)\n", turns, sessions)
	host := median(walls[0])
	for i, m := range modes {
		w := median(walls[i])
		fmt.Printf("  %-22s median %7.1f ms  per turn %.2f ms", m.name, ms(w), ms(w)/float64(turns+1))
		if i > 0 {
			fmt.Printf("  (+%.2f ms per turn over the host)", ms(w-host)/float64(turns+1))
		}
		fmt.Println()
	}
	return nil
}
