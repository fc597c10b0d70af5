package board

// The media types an attachment can have. Anything that is not one of
// these is MediaBinary: downloaded, never shown. HTML and SVG are text
// here: they are never served as a type a browser would run.
const (
	MediaPNG    = "image/png"
	MediaJPEG   = "image/jpeg"
	MediaGIF    = "image/gif"
	MediaWebP   = "image/webp"
	MediaPDF    = "application/pdf"
	MediaText   = "text/plain; charset=utf-8"
	MediaBinary = "application/octet-stream"
)

// IsImageMedia reports whether a sniffed media type is a picture shown
// inline.
func IsImageMedia(t string) bool {
	switch t {
	case MediaPNG, MediaJPEG, MediaGIF, MediaWebP:
		return true
	}
	return false
}
