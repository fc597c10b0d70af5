package tui

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// maxImage is the largest image a paste attaches.
const maxImage = 5 << 20

// imageTypes are the image files a paste attaches, by extension.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

// pastedImage reads the image a paste names: terminals paste a dragged
// file as its path, sometimes quoted or with escaped spaces. ok is false
// when the paste is not one image file's path.
func pastedImage(text string) (llm.Part, string, bool, error) {
	p := strings.TrimSpace(text)
	if strings.Contains(p, "\n") || len(p) < 5 {
		return llm.Part{}, "", false, nil
	}
	p = strings.Trim(p, `'"`)
	p = strings.ReplaceAll(p, `\ `, " ")
	p = strings.TrimPrefix(p, "file://")
	mime, isImage := imageTypes[strings.ToLower(filepath.Ext(p))]
	if !isImage || !filepath.IsAbs(p) {
		return llm.Part{}, "", false, nil
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return llm.Part{}, "", false, nil
	}
	if fi.Size() > maxImage {
		return llm.Part{}, "", true, fmt.Errorf("%s is %d MiB: images up to %d MiB attach", filepath.Base(p), fi.Size()>>20, maxImage>>20)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return llm.Part{}, "", true, err
	}
	return llm.Image(mime, base64.StdEncoding.EncodeToString(b)), filepath.Base(p), true, nil
}
