// Package tools holds the coding tools the model sees (DESIGN.md §6): read,
// write, edit, bash, grep, find and ls. Each tool is one Go file plus an
// embedded Markdown description, takes JSON arguments checked against its
// JSON schema, and reaches files and processes only through an
// executor.Executor.
//
// A tool failure the model should read (a missing file, a bad argument, a
// failing command) is a Result with IsError set; a Go error means the
// runtime itself failed.
package tools
