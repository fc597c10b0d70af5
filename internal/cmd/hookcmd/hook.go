// Package hookcmd holds `bonsai hook`: inbound webhooks added (their
// secret made or read from standard input and sealed with the
// credentials key), listed, their delivery log shown, tested with a
// signed delivery to the running server, and removed.
package hookcmd

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/hook"
)

// NewCmd returns `bonsai hook` and its subcommands.
func NewCmd(a *cmdkit.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Inbound webhooks: events from GitHub, GitLab, Gitea or anything start work",
		Long: `A hook is an address on bonsai serve, POST /hooks/<name>, that a forge or
any sender calls when something happens. Each hook has its own secret and
scheme: github (X-Hub-Signature-256), gitlab (X-Gitlab-Token), gitea
(X-Gitea-Signature) or hmac (a generic HMAC-SHA256 over a timestamp, a
nonce and the body, in the header of --header). A verified delivery does the
hook's action: ticket (create a ticket from --title, --description and
--criterion, whose {{path.to.field}} are the payload's fields), sync (sync
the project's tracker now), schedule (fire --schedule now) or run (run
--ticket now). --event and --when choose the deliveries that act.

A delivery id is taken once (a replay is refused), a body over 1 MiB is
refused unread, and every delivery is in the hook's log (bonsai hook log).
See docs/webhooks.md.`,
	}
	cmd.AddCommand(newAddCmd(a), newListCmd(a), newLogCmd(a), newTestCmd(a), newRmCmd(a))
	return cmd
}

type addOptions struct {
	project, scheme, action, header      string
	title, description, schedule, ticket string
	state                                string
	events, when, criteria               []string
	priority                             int
	secretStdin, asJSON                  bool
}

func newAddCmd(a *cmdkit.App) *cobra.Command {
	var o addOptions
	cmd := &cobra.Command{
		Use:   "add <name>",
		Short: "Add a hook and print its address and secret",
		Long: `Add a hook. Its secret is made at random and printed once, for the sender's
webhook form; --secret-stdin reads one instead (first line). The secret is
sealed with the credentials key before it is stored: bonsai.db alone never
holds it, and no command shows it again.`,
		Example: `  bonsai hook add gh-issues --project demo --scheme github --action ticket \
    --event issues.labeled --when label.name=bonsai --title '{{issue.title}}' \
    --description '{{issue.body}}

From {{issue.html_url}}' --state RESEARCH
  bonsai hook add gl-sync --project demo --scheme gitlab --action sync
  bonsai hook add deploy --project demo --scheme hmac --header X-Acme-Signature --action schedule --schedule smoke
  openssl rand -hex 32 | bonsai hook add ci --project demo --scheme hmac --action run --ticket '{{ticket}}' --secret-stdin`,
		Args: cmdkit.ExactArgs("<name>"),
		RunE: func(cmd *cobra.Command, args []string) error { return runAdd(cmd.Context(), a, args[0], o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "the project the hook acts on (required)")
	f.StringVar(&o.scheme, "scheme", "", "how deliveries are verified: github, gitlab, gitea or hmac (required)")
	f.StringVar(&o.action, "action", "", "what a delivery does: ticket, sync, schedule or run (required)")
	f.StringVar(&o.header, "header", "", "hmac: the signature's header (default "+hook.DefaultHeader+")")
	f.StringArrayVar(&o.events, "event", nil, `an event that acts, e.g. issues.labeled, or issues for every issues.* (repeat; default: all)`)
	f.StringArrayVar(&o.when, "when", nil, `path=value: a payload field that must hold the value, e.g. label.name=bonsai (repeat)`)
	f.StringVar(&o.title, "title", "", "ticket: the title template, e.g. '{{issue.title}}'")
	f.StringVar(&o.description, "description", "", "ticket: the description template (Markdown)")
	f.StringArrayVar(&o.criteria, "criterion", nil, "ticket: an acceptance criterion template (repeat)")
	cmdkit.AddPriorityFlag(f, &o.priority)
	f.StringVar(&o.state, "state", "", "ticket: the starting state, BACKLOG (default), RESEARCH or IN_PROGRESS")
	f.StringVar(&o.schedule, "schedule", "", "schedule: the schedule to fire")
	f.StringVar(&o.ticket, "ticket", "", "run: the ticket number, or a template giving it, e.g. '{{ticket}}'")
	f.BoolVar(&o.secretStdin, "secret-stdin", false, "read the secret from standard input (first line) instead of making one")
	f.BoolVar(&o.asJSON, "json", false, "print the hook as JSON (with the secret, once)")
	return cmd
}

// hookOf builds the hook the flags describe; its secret is set later.
func hookOf(name string, o addOptions) (board.Hook, error) {
	h := board.Hook{Name: name, ProjectSlug: o.project, Scheme: board.HookScheme(o.scheme), Header: o.header,
		Action: board.HookAction(o.action), Events: o.events, When: map[string]string{}, Title: o.title,
		Description: o.description, Criteria: o.criteria, Priority: o.priority, State: board.State(strings.ToUpper(o.state))}
	for _, w := range o.when {
		k, v, ok := strings.Cut(w, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return h, cmdkit.Usagef("--when %q: write path=value, e.g. label.name=bonsai", w)
		}
		h.When[strings.TrimSpace(k)] = v
	}
	switch h.Action {
	case board.HookSchedule:
		h.Target = o.schedule
	case board.HookRun:
		h.Target = o.ticket
	}
	if h.ProjectSlug == "" || h.Scheme == "" || h.Action == "" {
		return h, cmdkit.Usagef("give --project, --scheme (github, gitlab, gitea, hmac) and --action (ticket, sync, schedule, run)")
	}
	h.Secret = "unset"
	if err := h.Validate(); err != nil {
		return h, &cmdkit.UsageError{Err: err}
	}
	return h, nil
}

func runAdd(ctx context.Context, a *cmdkit.App, name string, o addOptions) error {
	h, err := hookOf(name, o)
	if err != nil {
		return err
	}
	secret := ""
	if o.secretStdin {
		if secret, err = readSecretLine(a.Stdin); err != nil {
			return err
		}
	} else {
		buf := make([]byte, 32)
		if _, err := rand.Read(buf); err != nil {
			return err
		}
		secret = hex.EncodeToString(buf)
	}
	s, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Project(ctx, h.ProjectSlug); err != nil {
		return err
	}
	ks, err := a.Keys().Store()
	if err != nil {
		return err
	}
	if h.Secret, err = ks.Seal(hook.SecretName(name), secret); err != nil {
		return fmt.Errorf("hook %s not added: seal its secret: %w", name, err)
	}
	if h, err = s.CreateHook(ctx, h); err != nil {
		return err
	}
	url := hookURL(a, name)
	if o.asJSON {
		return cmdkit.WriteJSON(a.Stdout, struct {
			board.Hook
			URL    string `json:"url"`
			Secret string `json:"secret"`
		}{h, url, secret})
	}
	fmt.Fprintf(a.Stdout, "Added hook %s: %s deliveries %s in project %s.\n", name, h.Scheme, actionText(h), h.ProjectSlug)
	fmt.Fprintf(a.Stdout, "Address: %s\n", url)
	if !o.secretStdin {
		fmt.Fprintf(a.Stdout, "Secret:  %s\n(shown once: paste it into the sender's webhook form now)\n", secret)
	}
	return nil
}

// actionText says what a hook's deliveries do.
func actionText(h board.Hook) string {
	switch h.Action {
	case board.HookTicket:
		return "create tickets"
	case board.HookSync:
		return "sync the tracker"
	case board.HookSchedule:
		return "fire schedule " + h.Target
	case board.HookRun:
		return "run ticket " + h.Target
	}
	return string(h.Action)
}

// hookURL is the hook's address: under config.json's forge.bonsaiURL
// when set, else on bonsai serve's default address.
func hookURL(a *cmdkit.App, name string) string {
	base := "http://127.0.0.1:7373"
	if cfg, err := a.Config(); err == nil && cfg.Forge.BonsaiURL != "" {
		base = strings.TrimSuffix(cfg.Forge.BonsaiURL, "/")
	}
	return base + "/hooks/" + name
}

// readSecretLine reads the first line of r, trimmed.
func readSecretLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", cmdkit.Usagef("read the secret from standard input: %v", err)
	}
	line = strings.TrimSpace(line)
	if len(line) < 16 {
		return "", cmdkit.Usagef("the secret on standard input is %d characters; give at least 16 (openssl rand -hex 32 makes one)", len(line))
	}
	return line, nil
}
