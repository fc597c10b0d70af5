// Package tools holds the coding tools the model sees (docs/design.md,
// §6): read, write, edit, bash, grep, find and ls, and screenshot where
// Chromium is installed. Each tool is one Go file (screenshot has a few)
// plus an embedded Markdown description, implements tool.Tool, validates
// its JSON arguments against its JSON schema (tool.Validator; hosts call
// it through tool.Checked), and reaches files and processes only through
// an executor.Executor.
//
// A tool failure the model should read (a missing file, a bad argument, a
// failing command) is a tool.Result with IsError set; a Go error means the
// runtime itself failed.
package tools
