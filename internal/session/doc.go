// Package session reads and writes the JSONL transcript files of
// docs/design.md (§7), and owns where they live and the live file beside
// a ticket's transcript.
//
// A file starts with a header line
//
//	{"type":"session","version":1,"id":"…","timestamp":"…","cwd":"…"}
//
// followed by one entry per line. Every entry has a type, a short hex id,
// the id of its parent (null for the first) and a timestamp, so the
// entries form a tree: branches and forks live in one file, and the
// current leaf names the conversation in use. Entry types are message
// (user, assistant and toolResult messages), model_change, compaction,
// label and custom (data kept for the host, never sent to the model).
//
// Each entry is written and fsynced as soon as it is appended, so a crash
// loses at most the entry being written. Reading is forgiving: a
// malformed line is skipped with a warning, an entry whose parent is
// missing is re-attached to the entry before it, and a tool call left
// without a result (the process died mid-tool) is answered with a
// synthetic result saying the call was interrupted.
//
// A File with a [Mirror] (on a board several machines share, the store)
// hands it every line before writing it, so the mirror holds the file
// byte for byte and any machine can rebuild it from there.
//
// [File.Context] rebuilds what the model sees: the path from the leaf to
// the root, and after a compaction the latest summary first, then the
// messages kept verbatim.
//
// [Layout] spells the sessions directory: a ticket's transcript and live
// file from its project and ticket IDs (refusing IDs that could name a
// path outside it), and the directory of `bonsai run`'s sessions for a
// working directory, whose files are named by [FileName]. The live file
// holds the assistant message being streamed, one [LiveLine] a line:
// [LiveWriter] writes it, [LiveReader] follows it with bounded memory
// through a [LineReader], which also serves readers of growing
// transcripts.
package session
