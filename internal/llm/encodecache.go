package llm

import (
	"hash/maphash"
	"sync"
	"unsafe"
	"weak"
)

// EncodeCache remembers a value an adapter derives from a message — its
// wire encoding — so a long conversation is encoded once rather than once
// per request: a request then costs the new messages plus copying the
// cached bytes.
//
// Entries are found by the identity of the message's content array and
// checked against a fingerprint of the message's fields and of every part's
// field (string data pointers and lengths, not contents), so a message whose
// parts were replaced is encoded again. Messages are treated as immutable
// once complete: changing a string's bytes in place (which Go does not
// allow) would go unnoticed. The cache holds only weak references to
// messages; entries of collected messages are dropped by [EncodeCache.Sweep].
// The zero value is ready to use and safe for concurrent use.
type EncodeCache[V any] struct {
	mu      sync.Mutex
	seed    maphash.Seed
	entries map[weak.Pointer[Part]]encodeEntry[V]
	puts    int
}

type encodeEntry[V any] struct {
	sum uint64
	val V
}

// Get returns the value stored for msg, if msg is unchanged since.
func (c *EncodeCache[V]) Get(msg *Message) (V, bool) {
	var zero V
	if len(msg.Content) == 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		return zero, false
	}
	e, ok := c.entries[weak.Make(&msg.Content[0])]
	if !ok || e.sum != c.fingerprint(msg) {
		return zero, false
	}
	return e.val, true
}

// Put stores v for msg. Messages without content are not stored: they
// are cheap to encode.
func (c *EncodeCache[V]) Put(msg *Message, v V) {
	if len(msg.Content) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.seed = maphash.MakeSeed()
		c.entries = map[weak.Pointer[Part]]encodeEntry[V]{}
	}
	c.entries[weak.Make(&msg.Content[0])] = encodeEntry[V]{sum: c.fingerprint(msg), val: v}
	c.puts++
	// Sweeping now and then bounds the garbage to about as many entries as
	// are alive.
	if c.puts > 64 && c.puts > len(c.entries)/2 {
		c.sweepLocked()
	}
}

// Sweep drops the entries of messages that were garbage collected.
func (c *EncodeCache[V]) Sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweepLocked()
}

// Len returns the number of entries.
func (c *EncodeCache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *EncodeCache[V]) sweepLocked() {
	for k := range c.entries {
		if k.Value() == nil {
			delete(c.entries, k)
		}
	}
	c.puts = 0
}

// fingerprint hashes what identifies msg's content: its fields and, for
// each part, the type and the address and length of every string and of
// the arguments. It costs time in the number of parts, not bytes.
func (c *EncodeCache[V]) fingerprint(msg *Message) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	str := func(s string) {
		maphash.WriteComparable(&h, uintptr(unsafe.Pointer(unsafe.StringData(s))))
		maphash.WriteComparable(&h, len(s))
	}
	str(string(msg.Role))
	str(msg.ToolCallID)
	str(msg.ToolName)
	str(msg.Provider)
	maphash.WriteComparable(&h, msg.IsError)
	maphash.WriteComparable(&h, len(msg.Content))
	for i := range msg.Content {
		p := &msg.Content[i]
		h.WriteString(string(p.Type))
		str(p.Text)
		str(p.Thinking)
		str(p.Signature)
		maphash.WriteComparable(&h, p.Redacted)
		str(p.MimeType)
		str(p.Data)
		str(p.ID)
		str(p.Name)
		str(p.Path)
		str(p.SHA256)
		maphash.WriteComparable(&h, uintptr(unsafe.Pointer(unsafe.SliceData(p.Arguments))))
		maphash.WriteComparable(&h, len(p.Arguments))
	}
	return h.Sum64()
}
