package agenthost

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// documentLoader reads the documents of a resumed session back from the
// workspace: the file at the part's path, if it still has the recorded
// SHA-256 and is within read's limit. nil without a workspace.
func documentLoader(ctx context.Context, ws executor.Executor) func(llm.Part) (string, bool) {
	if ws == nil {
		return nil
	}
	return func(p llm.Part) (string, bool) {
		if p.Path == "" || p.SHA256 == "" {
			return "", false
		}
		st, err := ws.Stat(ctx, p.Path)
		if err != nil || st.Dir || st.Size > tools.MaxDocumentBytes {
			return "", false
		}
		data, err := ws.ReadFile(ctx, p.Path)
		if err != nil {
			return "", false
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != p.SHA256 {
			return "", false
		}
		return base64.StdEncoding.EncodeToString(data), true
	}
}
