package tracker

import (
	"sort"
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

// timeCursor is how far comments with ids that do not grow (Linear's
// UUIDs) were read: the latest update time seen, and the ids seen with
// exactly that time, so that a comment written in the same millisecond
// is not lost. Written "unix-nanoseconds:id,id".
type timeCursor struct {
	since time.Time
	at    map[string]bool
}

func parseTimeCursor(s string) timeCursor {
	c := timeCursor{at: map[string]bool{}}
	t, ids, _ := strings.Cut(s, ":")
	ns, err := strconv.ParseInt(t, 10, 64)
	if err != nil || ns <= 0 {
		return c
	}
	c.since = time.Unix(0, ns).UTC()
	for _, id := range strings.Split(ids, ",") {
		if id != "" {
			c.at[id] = true
		}
	}
	return c
}

// seen reports whether the comment id, last updated at t, was read.
func (c timeCursor) seen(id string, t time.Time) bool {
	return t.Before(c.since) || t.Equal(c.since) && c.at[id]
}

// known reports a comment created before the cursor: one read earlier,
// so a later update of it is an edit.
func (c timeCursor) known(id string, created time.Time) bool {
	return created.Before(c.since) || created.Equal(c.since) && c.at[id]
}

// pass moves the cursor past comment id updated at t.
func (c *timeCursor) pass(id string, t time.Time) {
	switch {
	case t.After(c.since):
		c.since, c.at = t, map[string]bool{id: true}
	case t.Equal(c.since):
		c.at[id] = true
	}
}

func (c timeCursor) String() string {
	if c.since.IsZero() {
		return ""
	}
	ids := make([]string, 0, len(c.at))
	for id := range c.at {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strconv.FormatInt(c.since.UnixNano(), 10) + ":" + strings.Join(ids, ",")
}
