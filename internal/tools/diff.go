package tools

import (
	"fmt"
	"sort"
	"strings"
)

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// change replaces the old lines starting at 0-based line at with new ones.
type change struct {
	at       int
	old, new []string
}

// unifiedDiff renders the change of s made by replacing each region with
// repl, as a unified diff with three lines of context.
func unifiedDiff(name, s string, regions []region, repl string) (diff string, firstLine int) {
	starts := lineStarts(s)
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) - 1 }
	lineEnd := func(l int) int {
		if l+1 < len(starts) {
			return starts[l+1]
		}
		return len(s)
	}
	var changes []change
	sort.Slice(regions, func(i, j int) bool { return regions[i].start < regions[j].start })
	for i := 0; i < len(regions); {
		// Group regions that touch the same lines into one block.
		ls := lineOf(regions[i].start)
		le := lineOf(max(regions[i].end-1, regions[i].start))
		j := i + 1
		for j < len(regions) && lineOf(regions[j].start) <= le {
			le = max(le, lineOf(max(regions[j].end-1, regions[j].start)))
			j++
		}
		bs, be := starts[ls], lineEnd(le)
		var nb strings.Builder
		at := bs
		for _, r := range regions[i:j] {
			nb.WriteString(s[at:r.start])
			nb.WriteString(repl)
			at = r.end
		}
		nb.WriteString(s[at:be])
		changes = append(changes, trimChange(change{at: ls, old: splitLines(s[bs:be]), new: splitLines(nb.String())}))
		i = j
	}
	nLines := len(starts)
	if strings.HasSuffix(s, "\n") || s == "" {
		nLines--
	}
	line := func(i int) string { return strings.TrimSuffix(s[starts[i]:lineEnd(i)], "\n") }
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	delta := 0
	for i := 0; i < len(changes); {
		j := i + 1
		for j < len(changes) && changes[j].at-(changes[j-1].at+len(changes[j-1].old)) <= 2*diffContext {
			j++
		}
		from := max(changes[i].at-diffContext, 0)
		last := changes[j-1]
		to := min(last.at+len(last.old)+diffContext, nLines)
		oldN, newN := to-from, to-from
		for _, c := range changes[i:j] {
			newN += len(c.new) - len(c.old)
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(from, oldN), hunkRange(from+delta, newN))
		at := from
		for _, c := range changes[i:j] {
			for ; at < c.at; at++ {
				b.WriteString(" " + line(at) + "\n")
			}
			for _, l := range c.old {
				b.WriteString("-" + l + "\n")
			}
			for _, l := range c.new {
				b.WriteString("+" + l + "\n")
			}
			at += len(c.old)
			delta += len(c.new) - len(c.old)
		}
		for ; at < to; at++ {
			b.WriteString(" " + line(at) + "\n")
		}
		i = j
	}
	first := 0
	if len(changes) > 0 {
		first = changes[0].at + 1
	}
	return strings.TrimSuffix(b.String(), "\n"), first
}

// trimChange drops the lines a change leaves as they were.
func trimChange(c change) change {
	for len(c.old) > 0 && len(c.new) > 0 && c.old[0] == c.new[0] {
		c.old, c.new, c.at = c.old[1:], c.new[1:], c.at+1
	}
	for len(c.old) > 0 && len(c.new) > 0 && c.old[len(c.old)-1] == c.new[len(c.new)-1] {
		c.old, c.new = c.old[:len(c.old)-1], c.new[:len(c.new)-1]
	}
	return c
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lineStarts returns the byte offset where each line of s starts.
func lineStarts(s string) []int {
	starts := make([]int, 1, strings.Count(s, "\n")+1)
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}
