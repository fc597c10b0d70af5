package llm

// Usage counts the tokens of one response and what they cost. Input counts
// only uncached input tokens; tokens read from or written to the prompt
// cache are counted separately, so Input+CacheRead+CacheWrite is the whole
// prompt on every provider.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead,omitempty"`
	CacheWrite int64 `json:"cacheWrite,omitempty"`
	// Reasoning counts the output tokens the model spent thinking; they
	// are part of Output (and priced as output), counted apart to show
	// what thinking costs.
	Reasoning int64   `json:"reasoning,omitempty"`
	Cost      float64 `json:"cost,omitempty"` // USD
}

// ContextTokens returns the size of the context after this response:
// the whole prompt plus the output.
func (u Usage) ContextTokens() int64 {
	return u.Input + u.CacheRead + u.CacheWrite + u.Output
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Input:      u.Input + v.Input,
		Output:     u.Output + v.Output,
		CacheRead:  u.CacheRead + v.CacheRead,
		CacheWrite: u.CacheWrite + v.CacheWrite,
		Reasoning:  u.Reasoning + v.Reasoning,
		Cost:       u.Cost + v.Cost,
	}
}

// Info describes a model: its limits, capabilities and prices.
type Info struct {
	// ID is the full "provider/model" id.
	ID              string `json:"id"`
	ContextWindow   int    `json:"contextWindow"`
	MaxOutputTokens int    `json:"maxOutputTokens"`
	Images          bool   `json:"images"`
	// Documents marks models that take PDF documents.
	Documents bool `json:"documents,omitempty"`
	Thinking  bool `json:"thinking"`
	// AdaptiveThinking marks Anthropic models that take an effort level
	// (thinking.type "adaptive") instead of a thinking token budget.
	AdaptiveThinking bool `json:"adaptiveThinking,omitempty"`
	// MinEffort is the lowest reasoning effort an OpenAI-style reasoning
	// model accepts ("minimal" for GPT-5, "low" for o3 and o4-mini),
	// sent when thinking is off: such a model always reasons, at its
	// default effort (medium) when none is sent. Empty sends none.
	MinEffort string `json:"minEffort,omitempty"`
	Price     Price  `json:"price"`
}

// Price is what a model charges in USD per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Cost returns the USD cost of u at price p.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input +
		float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead +
		float64(u.CacheWrite)*p.CacheWrite) / 1e6
}
