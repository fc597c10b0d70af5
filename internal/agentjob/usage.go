package agentjob

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// AuthPause is how long a provider that rejected the key is left alone,
// so that every beat does not fail (and comment) again.
const AuthPause = 10 * time.Minute

// UsageOf converts the provider's usage, as the agent loop counts it, to
// the board's: the one place where the two meet.
func UsageOf(u llm.Usage) board.Usage {
	return board.Usage{InputTokens: u.Input, OutputTokens: u.Output,
		CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite, ReasoningTokens: u.Reasoning, CostUSD: u.Cost}
}
