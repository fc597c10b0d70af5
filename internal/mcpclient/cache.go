package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// cacheFile is a server's cached tool list. Key fingerprints what starts
// the server (never the values of its env or headers, which may be
// secrets): another command or URL lists the tools again.
type cacheFile struct {
	Key   string `json:"key"`
	Tools []spec `json:"tools"`
}

func cacheKey(s Server) string {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
	}
	write(s.Name, s.URL)
	write(s.Command...)
	var names []string
	for _, kv := range s.Env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	for k := range s.Headers {
		names = append(names, k)
	}
	slices.Sort(names)
	write(names...)
	return hex.EncodeToString(h.Sum(nil))
}

func cachePath(dir, name string) string { return filepath.Join(dir, name+".json") }

func readCache(dir string, s Server) ([]spec, bool) {
	if dir == "" {
		return nil, false
	}
	b, err := os.ReadFile(cachePath(dir, s.Name))
	if err != nil {
		return nil, false
	}
	var f cacheFile
	if json.Unmarshal(b, &f) != nil || f.Key != cacheKey(s) || len(f.Tools) == 0 {
		return nil, false
	}
	return f.Tools, true
}

// writeCache saves specs; failing to is not worth a warning: the next
// run lists the tools again.
func writeCache(dir string, s Server, specs []spec) {
	if dir == "" || len(specs) == 0 {
		return
	}
	b, err := json.Marshal(cacheFile{Key: cacheKey(s), Tools: specs})
	if err != nil || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp := cachePath(dir, s.Name) + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, cachePath(dir, s.Name))
	}
}
