// Package agent runs Bonsai's agent loop (docs/design.md §5): it sends the
// conversation to a model, streams the answer, runs the tools the model
// asks for, records every message in a session file, and repeats until the
// model stops asking for tools.
//
// The loop is split by step: request.go builds the request, stream.go
// streams one response, dispatch.go and execute.go run tool calls,
// persist.go records messages, stop.go holds the stop conditions and the
// no-progress breaker, compact.go summarises old turns when the context
// fills up. prompt.go assembles the system prompt from embedded Markdown.
//
// Every step is reported as an [Event] in a fixed order:
//
//	agent_start
//	  turn_start
//	    message_start / message_end            user (prompt, steering, follow-up)
//	    message_start, message_update…, message_end     assistant
//	    tool_execution_start, tool_execution_update…, tool_execution_end
//	    message_start / message_end            tool result
//	  turn_end
//	  … more turns …
//	agent_end
//
// Failures the model can act on (unknown tool, bad arguments, a failing or
// panicking tool) become tool results with isError set. The loop ends when
// the model stops, the context is cancelled (aborted), the deadline passes
// (timeout), the turn limit or budget is reached, the same failing call is
// made three times in a row (no_progress), or the model fails (error). The
// agent depends only on llm types, the session file, and the small [Tool]
// interface declared here.
package agent
