package llm

import "path"

// DocumentOmitted replaces documents sent to a model that does not take
// them.
const DocumentOmitted = "[document omitted: this model does not accept PDF documents; " +
	"use bash with pdftotext (poppler-utils) to read its text]"

// WithoutDocuments returns msgs with every document part replaced by a
// [DocumentOmitted] text part naming the file. Messages without documents
// are shared, not copied; msgs itself is never modified.
func WithoutDocuments(msgs []Message) []Message {
	return replaceParts(msgs, PartDocument, func(p Part) Part {
		return Text(DocumentOmitted + " (" + p.Path + ")")
	})
}

// DocumentNotLoaded is the text sent for a document part whose bytes are
// not in memory: a transcript keeps documents by reference only.
func DocumentNotLoaded(p Part) string {
	return "[document " + p.Path + " (sha256 " + p.SHA256 + ") is no longer loaded; read it again to see it]"
}

// DocumentFilename returns the file name of a document part, as the
// providers want it.
func DocumentFilename(p Part) string {
	if p.Path == "" {
		return "document.pdf"
	}
	return path.Base(p.Path)
}

// LoadDocuments returns msgs with the bytes of their unloaded document
// parts filled in by load (base64-encoded), where load finds them: a
// resumed transcript keeps documents by reference. Messages without
// documents are shared, not copied; msgs itself is never modified.
func LoadDocuments(msgs []Message, load func(Part) (string, bool)) []Message {
	return replaceParts(msgs, PartDocument, func(p Part) Part {
		if p.Data == "" {
			if data, ok := load(p); ok {
				p.Data = data
			}
		}
		return p
	})
}

// WithoutDocumentData returns m with the bytes of its document parts
// dropped, keeping their path and hash: what transcripts store. A message
// without documents is returned as it is.
func WithoutDocumentData(m Message) Message {
	if !has(m, PartDocument) {
		return m
	}
	parts := make([]Part, len(m.Content))
	for i, p := range m.Content {
		if p.Type == PartDocument {
			p.Data = ""
		}
		parts[i] = p
	}
	m.Content = parts
	return m
}

// replaceParts returns msgs with every part of type t replaced by f(part),
// copying only the messages that change.
func replaceParts(msgs []Message, t PartType, f func(Part) Part) []Message {
	var out []Message
	for i, m := range msgs {
		if !has(m, t) {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]Message, 0, len(msgs)), msgs[:i]...)
		}
		parts := make([]Part, len(m.Content))
		for j, p := range m.Content {
			if p.Type == t {
				p = f(p)
			}
			parts[j] = p
		}
		m.Content = parts
		out = append(out, m)
	}
	if out == nil {
		return msgs
	}
	return out
}

func has(m Message, t PartType) bool {
	for _, p := range m.Content {
		if p.Type == t {
			return true
		}
	}
	return false
}
