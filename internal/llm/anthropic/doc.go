// Package anthropic adapts Anthropic's Messages API to [llm.Model].
//
// It streams responses (text, tool use with streamed input JSON, extended
// thinking with signatures, redacted thinking), sends thinking blocks back
// with their signatures, sends images as base64 blocks, and marks prompt
// cache breakpoints on the system prompt, the last tool and the last two
// user turns, so a long session pays for each prefix byte once. There are
// no retries here: failures come back as classified [*llm.Error] values
// and retries are [llm.WithRetry]'s job.
//
// The wire format is written and read with encoding/json from this
// package's own small types, and the request is sent with net/http, with
// the headers anthropic-sdk-go v2.15.0 sends. Each message's encoding is
// cached ([llm.EncodeCache]), so a request in a long session costs its new
// messages plus one copy of the body. The official SDK is not linked: its
// generated types made every request re-encode the whole conversation
// (milliseconds and megabytes a turn late in a session) and, with the
// OpenAI SDK, were about 28 MB of the binary's resident size at start.
package anthropic
