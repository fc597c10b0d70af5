package board

// Usage is what agent work consumed: tokens by kind and their cost. It is
// the one shape of usage outside the model adapters: a run records one,
// the store sums them into spend, a runner reports one, and budgets compare
// them with their caps. The runner converts the provider's usage into it
// once.
type Usage struct {
	// InputTokens counts uncached prompt tokens.
	InputTokens int64 `json:"inputTokens"`
	// OutputTokens counts generated tokens, thinking included.
	OutputTokens int64 `json:"outputTokens"`
	// CacheReadTokens counts prompt tokens read from the provider's cache.
	CacheReadTokens int64 `json:"cacheReadTokens"`
	// CacheWriteTokens counts prompt tokens written to the provider's cache.
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	// ReasoningTokens counts the output tokens spent thinking, as far as
	// the provider reports them (OpenAI, DeepSeek and others do; Anthropic
	// counts thinking in the output without a breakdown). They are part of
	// OutputTokens and priced as output.
	ReasoningTokens int64 `json:"reasoningTokens,omitempty"`
	// CostUSD is what the tokens cost, at the model's price.
	CostUSD float64 `json:"costUsd"`
}

// Tokens returns every token counted against a token budget: input,
// output and cached alike.
func (u Usage) Tokens() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// CacheTokens returns the tokens read from or written to the cache.
func (u Usage) CacheTokens() int64 { return u.CacheReadTokens + u.CacheWriteTokens }

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
		CostUSD:          u.CostUSD + v.CostUSD,
	}
}

// Sub returns u less v: what was spent between two running totals.
func (u Usage) Sub(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens - v.InputTokens,
		OutputTokens:     u.OutputTokens - v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens - v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens - v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens - v.ReasoningTokens,
		CostUSD:          u.CostUSD - v.CostUSD,
	}
}
