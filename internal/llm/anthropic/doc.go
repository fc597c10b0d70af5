// Package anthropic adapts Anthropic's Messages API to [llm.Model], on the
// official SDK (github.com/anthropics/anthropic-sdk-go/v2).
//
// It streams responses (text, tool use with streamed input JSON, extended
// thinking with signatures, redacted thinking), sends thinking blocks back
// with their signatures, sends images as base64 blocks, and marks prompt
// cache breakpoints on the system prompt, the last tool and the last two
// user turns, so a long session pays for each prefix byte once. The SDK's
// own retries are off: failures come back as classified [*llm.Error]
// values and retries are [llm.WithRetry]'s job.
package anthropic
