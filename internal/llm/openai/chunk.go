package openai

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// chunk is one Chat Completions stream chunk with the fields the decoder
// reads; encoding/json fills it from the event's data. Text fields are
// lenient, since compatible servers differ in what they put there.
type chunk struct {
	Choices []struct {
		Index int64 `json:"index"`
		Delta struct {
			Content          lenientString   `json:"content"`
			Refusal          lenientString   `json:"refusal"`
			ReasoningContent lenientString   `json:"reasoning_content"` // DeepSeek, vLLM, llama.cpp
			Reasoning        lenientString   `json:"reasoning"`         // OpenRouter, Ollama
			ToolCalls        []toolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason lenientString `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	// Error is set on an error chunk inside the stream.
	Error json.RawMessage `json:"error"`
}

type toolCallDelta struct {
	Index    int64  `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      lenientString `json:"name"`
		Arguments lenientString `json:"arguments"`
	} `json:"function"`
}

// lenientString is a JSON string; null or any other value reads as "".
type lenientString string

// UnmarshalJSON implements [json.Unmarshaler].
func (s *lenientString) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' {
		return nil
	}
	// encoding/json has checked the value; without escapes it is the bytes
	// between the quotes.
	if in := b[1 : len(b)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		*s = lenientString(in)
		return nil
	}
	{
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = lenientString(v)
	}
	return nil
}
