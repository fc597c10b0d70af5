package store_test

import (
	"archive/zip"
	"bytes"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

func encoded(t *testing.T, enc func(*bytes.Buffer, image.Image) error, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zipBomb is a small archive of a large, highly compressible file.
func zipBomb(t *testing.T) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	f, err := zw.Create("bomb.txt")
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for range 64 {
		f.Write(zero)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSniffMedia(t *testing.T) {
	t.Parallel()
	pngData := encoded(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) }, 4, 3)
	// A PNG header claiming a picture of 100,000 × 100,000 pixels.
	bomb := append([]byte(nil), pngData...)
	copy(bomb[16:24], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	zb := zipBomb(t)
	if len(zb) > 1<<20 {
		t.Fatalf("the zip bomb is %d bytes, want a small one", len(zb))
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"png", pngData, board.MediaPNG},
		{"jpeg", encoded(t, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) }, 4, 3), board.MediaJPEG},
		{"gif", encoded(t, func(b *bytes.Buffer, m image.Image) error { return gif.Encode(b, m, nil) }, 4, 3), board.MediaGIF},
		{"webp", append([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L"), make([]byte, 14)...), board.MediaWebP},
		{"pdf", []byte("%PDF-1.7\n1 0 obj\n"), board.MediaPDF},
		{"text", []byte("panic: boom\n\tat main.go:3\n"), board.MediaText},
		{"svg with script is text", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), board.MediaText},
		{"xml svg is text", []byte(`<?xml version="1.0"?><svg onload="alert(1)"/>`), board.MediaText},
		{"html is text", []byte(`<!DOCTYPE html><script>alert(document.cookie)</script>`), board.MediaText},
		{"png header on html is binary", append([]byte("\x89PNG\r\n\x1a\n"), []byte("<script>alert(1)</script>")...), board.MediaBinary},
		{"polyglot png with html after it stays a picture", append(append([]byte(nil), pngData...), []byte("<html><script>alert(1)</script>")...), board.MediaPNG},
		{"pixel bomb is binary", bomb, board.MediaBinary},
		{"zip bomb is binary", zb, board.MediaBinary},
		{"gzip is binary", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), board.MediaBinary},
		{"latin-1 is binary", []byte("caf\xe9 au lait"), board.MediaBinary},
		{"riff that is not webp", []byte("RIFF\x1a\x00\x00\x00WEBPXXXX"), board.MediaBinary},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := store.SniffMedia(tc.data); got != tc.want {
				t.Errorf("SniffMedia = %q, want %q", got, tc.want)
			}
		})
	}
}
