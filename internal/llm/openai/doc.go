// Package openai adapts OpenAI's Chat Completions API, and every server that
// speaks it (OpenRouter, Groq, Ollama, vLLM, llama.cpp, Gemini's
// OpenAI-compatible endpoint), to [llm.Model]; and, as [ResponsesModel],
// OpenAI's Responses API, which its reasoning models need to keep their
// reasoning across tool calls.
//
// It streams text, parallel tool calls (assembled by index) and, where a
// server sends them, reasoning deltas (reasoning_content or reasoning) as
// thinking parts; it asks for usage with stream_options.include_usage and
// reports cached prompt tokens as cache reads. Tool results that carry
// images are followed by a user message holding the images, since tool
// messages take only text. There are no retries here: failures come back
// as classified [*llm.Error] values for [llm.WithRetry].
//
// The wire format is written and read with encoding/json from this
// package's own small types (stream chunks read leniently: a field of an
// unexpected type reads as empty), and requests are sent with net/http.
// Each message's encoding is cached ([llm.EncodeCache]). The official SDK
// (openai-go) is not linked; see package anthropic for why.
package openai
