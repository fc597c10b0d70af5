package board

import (
	"bytes"
	"image"
	_ "image/gif"  // DecodeConfig reads GIF headers
	_ "image/jpeg" // and JPEG
	_ "image/png"  // and PNG
	"net/http"
	"strings"
	"unicode/utf8"
)

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

// MaxImagePixels is the largest picture shown inline (width × height);
// a bigger one, like a decompression bomb, is only downloadable.
const MaxImagePixels = 50_000_000

// IsImageMedia reports whether a sniffed media type is a picture shown
// inline.
func IsImageMedia(t string) bool {
	switch t {
	case MediaPNG, MediaJPEG, MediaGIF, MediaWebP:
		return true
	}
	return false
}

// SniffMedia decides an attachment's media type from its content alone:
// net/http's sniffing first, then checks of its own. A picture must have a
// header its decoder reads and a bounded size; a PDF must start as one;
// text must be UTF-8 (HTML, SVG and XML are plain text here). Everything
// else, archives included, is MediaBinary and is never decompressed.
func SniffMedia(data []byte) string {
	sniffed := http.DetectContentType(data)
	switch {
	case sniffed == MediaPNG || sniffed == MediaJPEG || sniffed == MediaGIF:
		return checkedImage(data, sniffed)
	case sniffed == MediaWebP:
		if isWebP(data) {
			return MediaWebP
		}
	case sniffed == MediaPDF:
		if bytes.HasPrefix(data, []byte("%PDF-")) {
			return MediaPDF
		}
	case strings.HasPrefix(sniffed, "text/"):
		if utf8.Valid(data) {
			return MediaText
		}
	}
	return MediaBinary
}

// checkedImage returns sniffed when data's header decodes as that format
// and its picture is not too big, else MediaBinary.
func checkedImage(data []byte, sniffed string) string {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || "image/"+format != sniffed {
		return MediaBinary
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return MediaBinary
	}
	return sniffed
}

// isWebP checks the RIFF container and the first chunk of a WebP file.
func isWebP(data []byte) bool {
	if len(data) < 16 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
		return false
	}
	switch string(data[12:16]) {
	case "VP8 ", "VP8L", "VP8X":
		return true
	}
	return false
}
