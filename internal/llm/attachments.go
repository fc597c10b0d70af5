package llm

// AttachmentImage returns an image part holding a file attached to a
// ticket: name and the hex SHA-256 of its bytes stay in transcripts, the
// base64 bytes only in memory ([WithoutAttachmentData]).
func AttachmentImage(mimeType, name, sha256, base64Data string) Part {
	return Part{Type: PartImage, MimeType: mimeType, Path: name, SHA256: sha256, Data: base64Data}
}

// ImageNotLoaded is the text sent for an attachment's image whose bytes
// are not in memory: a transcript keeps it by name and hash only.
func ImageNotLoaded(p Part) string {
	return "[picture " + p.Path + " (sha256 " + p.SHA256 + ") was shown in an earlier run; the ticket's attachments list it]"
}

// WithoutAttachmentData returns m with the bytes of its attachment images
// (image parts carrying a SHA-256) dropped: what transcripts store. A
// message without them is returned as it is.
func WithoutAttachmentData(m Message) Message {
	found := false
	for _, p := range m.Content {
		found = found || p.Type == PartImage && p.SHA256 != "" && p.Data != ""
	}
	if !found {
		return m
	}
	parts := make([]Part, len(m.Content))
	for i, p := range m.Content {
		if p.Type == PartImage && p.SHA256 != "" {
			p.Data = ""
		}
		parts[i] = p
	}
	m.Content = parts
	return m
}

// ImagesNotLoaded returns msgs with every image part that has no bytes
// (an attachment's, read back from a transcript) replaced by a text part
// naming it, so no provider is sent an empty image. Messages without
// images are shared, not copied; msgs itself is never modified.
func ImagesNotLoaded(msgs []Message) []Message {
	return replaceParts(msgs, PartImage, func(p Part) Part {
		if p.Data == "" {
			return Text(ImageNotLoaded(p))
		}
		return p
	})
}
