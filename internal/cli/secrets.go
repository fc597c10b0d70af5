package cli

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/notify/outbox"
	"github.com/bonsai-run/bonsai/internal/store"
)

// forgeTokenEnv names the variables holding forge tokens, which git's
// credential helpers read for clone, fetch and push.
var forgeTokenEnv = credentials.ForgeTokenEnv

// secrets returns the Redactor of the secrets this process holds: every
// provider's key and the password of its base URL, the forge tokens, the
// web token, and the passwords in the repository URLs of projects and the
// secrets of notification channels (when a store is given). Text from a provider passes it before it is stored,
// shown or logged.
func secrets(ctx context.Context, a *app, st store.Store) *llm.Redactor {
	return secretsOf(ctx, a, st, nil)
}

// secretsOf is secrets with the store's projects (archived ones too)
// already listed, when projects is not nil.
func secretsOf(ctx context.Context, a *app, st store.Store, projects []board.Project) *llm.Redactor {
	s := credentials.EnvSecrets(a.getenv)
	if d, err := a.dataDir(); err == nil {
		if tok, err := os.ReadFile(d.WebTokenFile()); err == nil {
			s = append(s, string(tok))
		}
	}
	if st != nil {
		if projects == nil {
			projects, _ = st.Projects(ctx, store.ProjectFilter{IncludeArchived: true})
		}
		for _, p := range projects {
			s = append(s, llm.URLSecrets(p.Repo)...)
		}
		s = append(s, outbox.ChannelSecrets(ctx, st)...)
	}
	return llm.NewRedactor(s...)
}

// redactWriter redacts each write before passing it on: slog's handlers
// write one whole record per call, so no secret is split across writes.
type redactWriter struct {
	mu sync.Mutex
	w  io.Writer
	r  *llm.Redactor
}

func (w *redactWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := io.WriteString(w.w, w.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sealed is the store db with its channel secrets sealed by the
// credentials key (outbox.Sealed), whoever reads it.
func (a *app) sealed(db store.Store) store.Store {
	return outbox.Sealed{Store: db, Warn: a.stderr, Now: func() time.Time { return a.now() },
		Keys: func() (outbox.Keys, error) {
			cs, err := a.credentialStore()
			if err != nil {
				return nil, err
			}
			return cs, nil
		}}
}
