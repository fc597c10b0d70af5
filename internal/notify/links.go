package notify

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Link is a file that came with the notified comment or move: its name
// and, when Bonsai's public address is configured, where the web UI
// serves it. A message never carries a file's bytes.
type Link struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	MediaType string `json:"mediaType"`
	Size      int64  `json:"size"`
	// URL is the web UI's address of the file (behind its token); "" when
	// forge.bonsaiURL is not set.
	URL string `json:"url,omitempty"`
}

// MaxLinks is how many files a message lists; the others are counted.
const MaxLinks = 10

// AttachmentURL is where the web UI at base serves attachment id of
// ticket ref ("demo#3"); "" when base is empty or ref is not a ticket's.
func AttachmentURL(base, ref, id string) string {
	base = strings.TrimSuffix(base, "/")
	r, err := board.ParseRef(ref)
	if base == "" || err != nil || id == "" {
		return ""
	}
	return base + "/p/" + url.PathEscape(r.Project) + "/" + strconv.Itoa(r.Number) + "/attachments/" + url.PathEscape(id)
}

// WithAttachments returns m with the files as, linked from base (the
// web UI's public address; "" lists them without links), in Attachments
// and at the end of Body as plain text.
func (m Message) WithAttachments(base string, as []board.Attachment) Message {
	if len(as) == 0 {
		return m
	}
	m.Attachments = make([]Link, len(as))
	for i, a := range as {
		m.Attachments[i] = Link{ID: a.ID, Name: board.SanitizeName(a.Name), MediaType: a.MediaType, Size: a.Size,
			URL: AttachmentURL(base, m.Ticket, a.ID)}
	}
	m.text = m.Body
	m.Body = strings.TrimSpace(m.Body + "\n\n" + linkList(m, plainLink))
	return m
}

// plainText is the message's body without its list of files.
func (m Message) plainText() string {
	if m.Attachments == nil {
		return m.Body
	}
	return m.text
}

// linkList writes the message's files, one a line, each with format; the
// files over MaxLinks are counted, and without links it says how to see
// them.
func linkList(m Message, format func(Link) string) string {
	var b strings.Builder
	b.WriteString("Attached:")
	for i, l := range m.Attachments {
		if i == MaxLinks {
			fmt.Fprintf(&b, "\n- and %d more", len(m.Attachments)-MaxLinks)
			break
		}
		b.WriteString("\n- " + format(l))
	}
	if len(m.Attachments) > 0 && m.Attachments[0].URL == "" {
		b.WriteString("\n(See them with: bonsai ticket show " + m.Ticket + "; set forge.bonsaiURL in config.json for links.)")
	}
	return b.String()
}

// plainLink is a file in plain text: its name and size, then its URL.
func plainLink(l Link) string {
	s := l.Name + " (" + board.HumanSize(l.Size) + ")"
	if l.URL != "" {
		s += ": " + l.URL
	}
	return s
}

// slackEscape escapes the three characters Slack's mrkdwn gives meaning
// to in text.
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// slackLink is a file as a Slack link, <url|name>, its name escaped.
func slackLink(l Link) string {
	name := slackEscape.Replace(l.Name) + " (" + board.HumanSize(l.Size) + ")"
	if l.URL == "" {
		return name
	}
	return "<" + slackEscape.Replace(l.URL) + "|" + name + ">"
}

// discordEscape backslash-escapes Discord's Markdown in a name, so it
// stays the text of its link.
var discordEscape = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "|", `\|`,
	"[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`, "<", `\<`, ">", `\>`, "#", `\#`, "@", `\@`, ":", `\:`)

// discordLink is a file as a Markdown link, [name](<url>): its name
// escaped, the URL in angle brackets (no preview).
func discordLink(l Link) string {
	name := discordEscape.Replace(l.Name)
	if l.URL != "" {
		name = "[" + name + "](<" + l.URL + ">)"
	}
	return name + " (" + board.HumanSize(l.Size) + ")"
}
