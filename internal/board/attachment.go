package board

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// EventAttachmentAdded is a file attached to a ticket or one of its
// comments.
const EventAttachmentAdded EventType = "attachment.added"

// Attachment is a file on a ticket, or on one of its comments: its bytes
// are kept once per content (by SHA256), its metadata once per attaching.
type Attachment struct {
	ID       string `json:"id"`
	TicketID string `json:"ticketId"`
	// CommentID is the comment the file came with; "" for the ticket's own.
	CommentID string `json:"commentId,omitempty"`
	// Name is the sanitised file name (SanitizeName): never a path.
	Name string `json:"name"`
	// MediaType is sniffed from the content (store.SniffMedia), never taken
	// from the name or from whoever sent it.
	MediaType  string    `json:"mediaType"`
	Size       int64     `json:"size"`
	SHA256     string    `json:"sha256"`
	AuthorType Actor     `json:"authorType"`
	AuthorName string    `json:"authorName"`
	CreatedAt  time.Time `json:"createdAt"`
}

// IsImage reports whether the attachment is shown inline as a picture.
func (a Attachment) IsImage() bool { return IsImageMedia(a.MediaType) }

// NewAttachment is a file about to be attached.
type NewAttachment struct {
	CommentID  string
	Name       string
	Data       []byte
	AuthorType Actor
	AuthorName string
}

// AttachmentLimits bound what a ticket holds: the largest file and the
// sum of its files, in bytes.
type AttachmentLimits struct {
	File, Ticket int64
}

// Default attachment limits: 25 MiB a file, 100 MiB a ticket.
const (
	DefaultAttachmentFileMiB   = 25
	DefaultAttachmentTicketMiB = 100
)

// DefaultAttachmentLimits are the limits when config.json sets none.
var DefaultAttachmentLimits = AttachmentLimits{File: DefaultAttachmentFileMiB << 20, Ticket: DefaultAttachmentTicketMiB << 20}

// MaxAttachmentName is the longest file name kept, in bytes.
const MaxAttachmentName = 120

// FileTooLarge is the refusal of a file over the per-file limit.
func (l AttachmentLimits) FileTooLarge(name string, size int64) error {
	return Errorf(EINVALID, "%s is %s; attachments are limited to %s a file (config: attachments.fileMiB)",
		name, HumanSize(size), HumanSize(l.File))
}

// Check refuses a file of size bytes on a ticket already holding held
// bytes of attachments, naming the limit it breaks.
func (l AttachmentLimits) Check(name string, size, held int64) error {
	if l.File > 0 && size > l.File {
		return l.FileTooLarge(name, size)
	}
	if l.Ticket > 0 && held+size > l.Ticket {
		return Errorf(EINVALID, "%s (%s) would bring the ticket's attachments to %s; a ticket holds at most %s (config: attachments.ticketMiB)",
			name, HumanSize(size), HumanSize(held+size), HumanSize(l.Ticket))
	}
	return nil
}

// Validate checks a file about to be attached and returns it with its
// name sanitised.
func (n NewAttachment) Validate() (NewAttachment, error) {
	if !n.AuthorType.Valid() {
		return n, Errorf(EINVALID, "unknown author type %q", n.AuthorType)
	}
	if len(n.Data) == 0 {
		return n, Errorf(EINVALID, "%s is empty; attach a file with content", SanitizeName(n.Name))
	}
	n.Name = SanitizeName(n.Name)
	return n, nil
}

// SanitizeName makes a file name safe to store and show: the last element
// of any path (either separator), control and format characters and
// invalid UTF-8 dropped, leading dots removed (no hidden or "..") and at
// most MaxAttachmentName bytes, keeping the extension. An empty result is
// "file".
func SanitizeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == ':' {
			continue
		}
		b.WriteRune(r)
	}
	s := strings.TrimLeft(strings.TrimSpace(b.String()), ".")
	s = truncateName(s, MaxAttachmentName)
	if s == "" {
		return "file"
	}
	return s
}

// truncateName cuts s to at most n bytes on a rune boundary, keeping a
// short extension.
func truncateName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	ext := ""
	if i := strings.LastIndexByte(s, '.'); i > 0 && len(s)-i <= 16 {
		s, ext = s[:i], s[i:]
	}
	cut := n - len(ext)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ext
}

// HumanSize writes a byte count the way the messages say it.
func HumanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
