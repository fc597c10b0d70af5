package tracker

import (
	"strconv"
	"strings"
	"time"
)

// commentCursor is how far an issue's comments were read: the highest
// comment id seen, and the latest time a seen comment was updated, so
// that an edit after delivery is noticed. Written "id@unix-nanoseconds";
// an unreadable cursor reads everything again.
type commentCursor struct {
	last  int64
	since time.Time
}

func parseCommentCursor(s string) commentCursor {
	id, t, ok := strings.Cut(s, "@")
	if !ok {
		return commentCursor{}
	}
	last, err1 := strconv.ParseInt(id, 10, 64)
	ns, err2 := strconv.ParseInt(t, 10, 64)
	if err1 != nil || err2 != nil || last < 0 {
		return commentCursor{}
	}
	c := commentCursor{last: last}
	if ns > 0 {
		c.since = time.Unix(0, ns).UTC()
	}
	return c
}

// pass moves the cursor past c.
func (c *commentCursor) pass(r rawComment) {
	c.last = max(c.last, r.id)
	if r.updated.After(c.since) {
		c.since = r.updated
	}
}

func (c commentCursor) String() string {
	ns := int64(0)
	if !c.since.IsZero() {
		ns = c.since.UnixNano()
	}
	return strconv.FormatInt(c.last, 10) + "@" + strconv.FormatInt(ns, 10)
}
