package llm

import (
	"bytes"
	"slices"
	"sync"
)

// ToolsCache remembers the wire encoding of the tool list an adapter
// encoded last, so that a run, which sends the same tools with every
// request, has their schemas decoded, checked and encoded once rather
// than once a request. A list is the cached one when it holds the same
// tools with the same names, descriptions and parameter bytes, compared
// by content: a list built again, or changed in place, is encoded again.
// The zero value is ready to use and safe for concurrent use.
type ToolsCache struct {
	mu    sync.Mutex
	specs []ToolSpec // the list encoded, its parameters copied
	enc   []byte
	ok    bool
}

// Encode returns encode(specs), from the cache when specs equals the
// list encoded last. The bytes returned must not be modified. An error
// is returned as it is and not kept.
func (c *ToolsCache) Encode(specs []ToolSpec, encode func([]ToolSpec) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && sameTools(c.specs, specs) {
		return c.enc, nil
	}
	enc, err := encode(specs)
	if err != nil {
		return nil, err
	}
	kept := slices.Clone(specs)
	for i := range kept {
		kept[i].Parameters = bytes.Clone(kept[i].Parameters)
	}
	c.specs, c.enc, c.ok = kept, enc, true
	return enc, nil
}

// sameTools reports whether a and b hold the same tools, field by field.
func sameTools(a, b []ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description ||
			!bytes.Equal(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}
