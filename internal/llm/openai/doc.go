// Package openai adapts OpenAI's Chat Completions API, and every server that
// speaks it (OpenRouter, Groq, Ollama, vLLM, llama.cpp, Gemini's
// OpenAI-compatible endpoint), to [llm.Model], on the official SDK
// (github.com/openai/openai-go/v3).
//
// It streams text, parallel tool calls (assembled by index) and, where a
// server sends them, reasoning deltas (reasoning_content or reasoning) as
// thinking parts; it asks for usage with stream_options.include_usage and
// reports cached prompt tokens as cache reads. Tool results that carry
// images are followed by a user message holding the images, since tool
// messages take only text. The SDK's own retries are off: failures come
// back as classified [*llm.Error] values for [llm.WithRetry].
package openai
