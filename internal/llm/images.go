package llm

// ImageOmitted replaces images sent to a model that does not take them.
const ImageOmitted = "[image omitted: this model does not accept images]"

// WithoutImages returns msgs with every image part replaced by an
// [ImageOmitted] text part. Messages without images are shared, not
// copied; msgs itself is never modified.
func WithoutImages(msgs []Message) []Message {
	return replaceParts(msgs, PartImage, func(Part) Part { return Text(ImageOmitted) })
}
