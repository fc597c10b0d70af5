package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	_ "image/gif"  // DecodeConfig reads GIF headers
	_ "image/jpeg" // and JPEG
	_ "image/png"  // and PNG
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/board"
)

// MaxImagePixels is the largest picture shown inline (width × height);
// a bigger one, like a decompression bomb, is only downloadable.
const MaxImagePixels = 50_000_000

// ContentSHA256 is the hex SHA-256 of data: an attachment's content
// address.
func ContentSHA256(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// SniffMedia decides an attachment's media type from its content alone:
// net/http's sniffing first, then checks of its own. A picture must have a
// header its decoder reads and a bounded size; a PDF must start as one;
// text must be UTF-8 (HTML, SVG and XML are plain text here). Everything
// else, archives included, is board.MediaBinary and is never decompressed.
func SniffMedia(data []byte) string {
	sniffed := http.DetectContentType(data)
	switch {
	case sniffed == board.MediaPNG || sniffed == board.MediaJPEG || sniffed == board.MediaGIF:
		return checkedImage(data, sniffed)
	case sniffed == board.MediaWebP:
		if isWebP(data) {
			return board.MediaWebP
		}
	case sniffed == board.MediaPDF:
		if bytes.HasPrefix(data, []byte("%PDF-")) {
			return board.MediaPDF
		}
	case strings.HasPrefix(sniffed, "text/"):
		if utf8.Valid(data) {
			return board.MediaText
		}
	}
	return board.MediaBinary
}

// checkedImage returns sniffed when data's header decodes as that format
// and its picture is not too big, else board.MediaBinary.
func checkedImage(data []byte, sniffed string) string {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || "image/"+format != sniffed {
		return board.MediaBinary
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return board.MediaBinary
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
