// Package llmtest provides fake language models for tests, at two levels:
//
//   - [Model], an in-process [llm.Model] that plays a script of turns and
//     records the requests it receives, for agent-loop tests;
//   - [Server], an httptest server that speaks Anthropic's Messages
//     streaming protocol (server-sent events), OpenAI's Chat Completions
//     streaming protocol (data-only chunks ending with [DONE]) and OpenAI's
//     Responses streaming protocol (typed events from response.created to
//     response.completed, with reasoning items and function calls) event by
//     event, plays a script of turns, records requests (headers and decoded
//     JSON bodies), and injects faults: error statuses with each provider's
//     error body, retry-after headers, connections reset mid-stream,
//     malformed JSON, and error events mid-stream.
//
// Both take their turns as [llm.Message] values, so one script can drive
// either level.
package llmtest
