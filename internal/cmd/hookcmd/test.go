package hookcmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/hook"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// samplePayload is what `hook test` sends without --payload: an issue
// labelled bonsai, as GitHub and Gitea send it (GitLab: its issue event).
const samplePayload = `{"action":"labeled","label":{"name":"bonsai"},"issue":{"number":1,"title":"Test delivery from bonsai hook test",
"body":"Sent by bonsai hook test.","html_url":"https://example.com/issues/1","labels":[{"name":"bonsai"}]},"ticket":"1"}`

const sampleGitLab = `{"object_kind":"issue","object_attributes":{"action":"open","iid":1,"title":"Test delivery from bonsai hook test",
"description":"Sent by bonsai hook test.","url":"https://example.com/issues/1"},"labels":[{"title":"bonsai"}],"ticket":"1"}`

type testOptions struct {
	payload, event, url string
}

func newTestCmd(a *cmdkit.App) *cobra.Command {
	var o testOptions
	cmd := &cobra.Command{
		Use:   "test <name>",
		Short: "Send the running server a delivery signed as the hook's sender would",
		Long: `Send bonsai serve a delivery to the hook, signed with its secret the way
its scheme's sender signs, and print the answer. The delivery is real: a
ticket hook creates its ticket, a sync hook syncs. Without --payload it is an
issue labelled bonsai (GitLab: an issue opened), with the field ticket "1".`,
		Example: "  bonsai hook test gh-issues\n  bonsai hook test ci --payload event.json --event deploy --url https://bonsai.example.com",
		Args:    cmdkit.ExactArgs("<name>"),
		RunE:    func(cmd *cobra.Command, args []string) error { return runTest(cmd.Context(), a, args[0], o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.payload, "payload", "", "a file holding the JSON payload to send (- for standard input)")
	f.StringVar(&o.event, "event", "", "the event header to send (default: issues; GitLab: Issue Hook)")
	f.StringVar(&o.url, "url", "", "the server's base URL (default: config.json's forge.bonsaiURL, else http://127.0.0.1:7373)")
	return cmd
}

func runTest(ctx context.Context, a *cmdkit.App, name string, o testOptions) error {
	s, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	h, err := s.Hook(ctx, name)
	if err != nil {
		return err
	}
	ks, err := a.Keys().Store()
	if err != nil {
		return err
	}
	secret, err := ks.Unseal(hook.SecretName(name), h.Secret)
	if err != nil {
		return fmt.Errorf("open hook %s's secret: %w", name, err)
	}
	body, event, err := testPayload(a, h, o)
	if err != nil {
		return err
	}
	url := hookURL(a, name)
	if o.url != "" {
		url = strings.TrimSuffix(o.url, "/") + "/hooks/" + name
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return cmdkit.Usagef("--url: %v", err)
	}
	id := make([]byte, 8)
	rand.Read(id)
	req.Header = hook.Headers(h, secret, "bonsai-test-"+hex.EncodeToString(id), event, body, a.Now())
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("send the delivery to %s: %w; is bonsai serve running there?", url, err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	fmt.Fprintf(a.Stdout, "POST %s: %s\n%s\n", url, res.Status, termsafe.Text(strings.TrimSpace(string(answer))))
	if res.StatusCode >= 400 {
		return fmt.Errorf("the server refused the delivery (%s); 'bonsai hook log %s' says why", res.Status, name)
	}
	return nil
}

// testPayload returns the body and event to send.
func testPayload(a *cmdkit.App, h board.Hook, o testOptions) ([]byte, string, error) {
	body, event := []byte(samplePayload), "issues"
	if h.Scheme == board.HookGitLab {
		body, event = []byte(sampleGitLab), "Issue Hook"
	}
	if o.event != "" {
		event = o.event
	}
	switch o.payload {
	case "":
		return body, event, nil
	case "-":
		b, err := io.ReadAll(io.LimitReader(a.Stdin, 1<<20+1))
		return b, event, err
	}
	b, err := os.ReadFile(o.payload)
	if err != nil {
		return nil, "", cmdkit.Usagef("--payload: %v", err)
	}
	return b, event, nil
}
