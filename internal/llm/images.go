package llm

// ImageOmitted replaces images sent to a model that does not take them.
const ImageOmitted = "[image omitted: this model does not accept images]"

// WithoutImages returns msgs with every image part replaced by an
// [ImageOmitted] text part. Messages without images are shared, not
// copied; msgs itself is never modified.
func WithoutImages(msgs []Message) []Message {
	var out []Message
	for i, m := range msgs {
		if !hasImage(m) {
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
			if p.Type == PartImage {
				p = Text(ImageOmitted)
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

func hasImage(m Message) bool {
	for _, p := range m.Content {
		if p.Type == PartImage {
			return true
		}
	}
	return false
}
