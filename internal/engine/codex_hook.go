package engine

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
)

// codexHookFile is the policy hook's program in Codex's config
// directory, run by node. Codex 0.169 runs a hook as "$SHELL -c COMMAND":
// no login profile (which the agent's commands could write into the
// sandbox's home) runs first; codex_hook_test.go plants one that exits 0
// to catch a version that would.
const codexHookFile = "bonsai-codex-hook.mjs"

//go:embed codex_hook.mjs
var codexHookJS string

// codexHook is codexHookFile's content: the hook program asking hook
// with token.
func codexHook(hook, token string) string {
	h, _ := json.Marshal(hook)
	t, _ := json.Marshal(token)
	return strings.NewReplacer("__HOOK__", string(h), "__TOKEN__", string(t)).Replace(codexHookJS)
}

// codexHookCommand is the hook's command: the program, and a block with
// the reason on stderr (exit 2) whenever it fails, node missing or
// killed included.
func codexHookCommand(dir string) string {
	return "node " + shellQuote(filepath.Join(dir, codexHookFile)) +
		` || { echo "Bonsai's command policy did not answer, so the command did not run." >&2; exit 2; }`
}

// codexPolicyHooks is, as an inline TOML table for -c hooks=, a
// PreToolUse hook for Codex's shell tool (which its hooks name Bash) and
// its apply_patch tool running codexHookCommand. It is given on the
// command line, not in Codex's home, which the CLI can write.
func codexPolicyHooks(dir string) string {
	q := strconv.Quote
	return `{PreToolUse=[{matcher=` + q("^("+hookBash+"|"+hookApplyPatch+")$") +
		`,hooks=[{type="command",timeout=3600,command=` + q(codexHookCommand(dir)) + `}]}]}`
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
