// Package llm holds the provider-neutral vocabulary Bonsai uses to talk to
// language models: requests, messages, streamed events, usage, errors and
// model metadata. It does no I/O; adapters (llm/anthropic, llm/openai)
// translate it to and from each provider's wire format.
//
// # Messages
//
// A conversation is a slice of [Message]. Each message has a [Role]
// ("user", "assistant" or "toolResult") and a content array of typed
// [Part] values:
//
//	{"type":"text","text":"…"}
//	{"type":"image","mimeType":"image/png","data":"<base64>"}
//	{"type":"thinking","thinking":"…","signature":"…"}            // signature is opaque, sent back verbatim
//	{"type":"thinking","signature":"<opaque>","redacted":true}    // redacted thinking: the payload is in signature
//	{"type":"toolCall","id":"…","name":"read","arguments":{…}}
//
// A tool result is a message of its own with role "toolResult", the
// toolCallId and toolName it answers, isError, and text or image parts. One
// result per message keeps each one appendable to a session file as soon as
// the tool finishes; adapters merge consecutive results into the single
// turn a provider expects.
//
// Assistant messages also carry the provider, model, stop reason
// ("stop", "tool_use", "length", "aborted", "error"), the [Usage] of the
// response with its cost in USD, and an error message when the stream
// failed. The JSON encoding is compact (empty fields are omitted) and
// stable: field names and order are part of the session file format
// (docs/design.md §7).
//
// # Streaming
//
// [Model] has a single method, Stream, which returns an iter.Seq2 of
// [Event] and error. Ranging over it performs the request; breaking out of
// the loop or cancelling the context ends it and releases the connection.
// No goroutine outlives the loop. Events arrive as start/delta/end triples
// per content part (text, thinking, tool call), each naming the part's
// index in the final message, then exactly one terminal event:
//
//   - [EventDone] with the final assistant message and a nil error, or
//   - [EventError] with the partial assistant message (stop reason "error"
//     or "aborted") and a non-nil error, which is an [*Error] (classified by
//     [ErrorKind]) or the context's error.
//
// [Accumulator] rebuilds a message from events; [Collect] drains a stream.
//
// # Errors and retries
//
// Adapters classify failures once, as [*Error] values with a Kind (auth,
// rate_limit, overloaded, context_overflow, invalid_request, transport), the
// HTTP status, and the provider's retry-after. [WithRetry] wraps any Model
// and retries retryable failures that happen before the first content
// event, with exponential backoff, jitter, and an injectable sleep.
//
// # Models
//
// Models are named "provider/model" ([ParseModelID]). [Providers] is the
// table of the providers Bonsai knows: each one's wire format, key and base
// URL variables and default base URL, as data, so that the CLI and the web
// UI read the variables the wiring reads. [Info] describes a model's limits
// and prices; the embedded catalog lives in llm/catalog and the wiring from
// an id to a concrete adapter in llm/provider.
//
// # Helpers for adapters
//
// [EncodeCache] keeps each message's wire encoding so a request in a long
// session re-encodes only its new messages; [Body] sends the cached bytes
// without copying them; [SSEReader] reads a text/event-stream body;
// [StreamGuard] gives up a stream that goes quiet (keep-alives aside) or
// grows past a size cap; [Redactor] hides the process's secrets in every
// error an adapter returns, since a proxy may echo the request's headers.
// They do no I/O of their own: the adapters own the connections.
package llm
