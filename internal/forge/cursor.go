package forge

import (
	"sort"
	"strconv"
	"strings"
)

// cursor is a review cursor's parts: the last id seen per list ("r"
// reviews, "c" review comments, "i" conversation comments, "n" GitLab
// notes) and, for GitLab, the reviewers whose "changes requested" was
// given ("x").
type cursor struct {
	ids  map[string]int64
	who  []string
	text string
}

// parseCursor reads "r=12,c=40,x=alice+bob"; parts it does not know are
// dropped, so an unreadable cursor reads everything again.
func parseCursor(s string) cursor {
	c := cursor{ids: map[string]int64{}}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		if k == "x" {
			if v != "" {
				c.who = strings.Split(v, "+")
			}
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			c.ids[k] = n
		}
	}
	return c
}

// seen raises the id of list k to id.
func (c *cursor) seen(k string, id int64) {
	if id > c.ids[k] {
		c.ids[k] = id
	}
}

func (c cursor) String() string {
	var keys []string
	for k := range c.ids {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+strconv.FormatInt(c.ids[k], 10))
	}
	if len(c.who) > 0 {
		w := append([]string(nil), c.who...)
		sort.Strings(w)
		parts = append(parts, "x="+strings.Join(w, "+"))
	}
	return strings.Join(parts, ",")
}

// combine folds check results: any failure fails, else any pending is
// pending, else success; no results is none.
func combine(states ...Checks) Checks {
	out := ChecksNone
	for _, s := range states {
		switch {
		case s == ChecksFailure:
			return ChecksFailure
		case s == ChecksPending:
			out = ChecksPending
		case s == ChecksSuccess && out == ChecksNone:
			out = ChecksSuccess
		}
	}
	return out
}
