package board

import (
	"fmt"
	"strings"
)

// LinkKind is how one ticket depends on another (docs/design.md §3, the
// pick policy: a ticket that waits is not picked).
type LinkKind string

// The link kinds. A link (ticket, other, kind) reads "ticket is blocked by
// other" or "ticket is a sub-ticket of other".
const (
	// LinkBlockedBy: the ticket waits until other is DONE.
	LinkBlockedBy LinkKind = "blocked_by"
	// LinkParent: the ticket is a sub-ticket of other, which waits until
	// every sub-ticket of it is DONE and is then verified as a whole.
	LinkParent LinkKind = "parent"
)

// Valid reports whether k is a known link kind.
func (k LinkKind) Valid() bool { return k == LinkBlockedBy || k == LinkParent }

// MaxSplit bounds how many sub-tickets one ticket_split creates.
const MaxSplit = 10

// Link is one dependency between two tickets of a project.
type Link struct {
	Ticket Ref      `json:"ticket"`
	Other  Ref      `json:"other"`
	Kind   LinkKind `json:"kind"`
}

// waitsFor returns the edge "a waits for b" that l puts in the project's
// graph: a blocked ticket waits for its blocker, a parent for its
// sub-ticket.
func (l Link) waitsFor() (a, b Ref) {
	if l.Kind == LinkParent {
		return l.Other, l.Ticket
	}
	return l.Ticket, l.Other
}

// LinkedTicket is a ticket seen from another one's links: enough to name
// it and say whether it is done.
type LinkedTicket struct {
	Ref   Ref    `json:"ref"`
	Title string `json:"title"`
	State State  `json:"state"`
}

// Done reports whether t no longer holds anything up.
func (t LinkedTicket) Done() bool { return t.State == Done }

// Links are a ticket's dependencies in both directions.
type Links struct {
	// Parent is the ticket this one is a sub-ticket of, if any.
	Parent *LinkedTicket `json:"parent,omitempty"`
	// Children are its sub-tickets, by number.
	Children []LinkedTicket `json:"children"`
	// BlockedBy are the tickets it waits for, by number.
	BlockedBy []LinkedTicket `json:"blockedBy"`
	// Blocks are the tickets that wait for it, by number.
	Blocks []LinkedTicket `json:"blocks"`
}

// Waiting returns what keeps the ticket from being picked: its blockers
// that are not DONE, then its sub-tickets that are not DONE.
func (l Links) Waiting() []LinkedTicket {
	var w []LinkedTicket
	for _, t := range l.BlockedBy {
		if !t.Done() {
			w = append(w, t)
		}
	}
	for _, t := range l.Children {
		if !t.Done() {
			w = append(w, t)
		}
	}
	return w
}

// WaitingText says why the ticket waits, e.g. "waits for demo#4
// (IN_PROGRESS), demo#6 (sub-ticket, RESEARCH)"; "" when it does not.
func (l Links) WaitingText() string {
	var parts []string
	for _, t := range l.BlockedBy {
		if !t.Done() {
			parts = append(parts, fmt.Sprintf("%s (%s)", t.Ref, t.State))
		}
	}
	for _, t := range l.Children {
		if !t.Done() {
			parts = append(parts, fmt.Sprintf("%s (sub-ticket, %s)", t.Ref, t.State))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "waits for " + strings.Join(parts, ", ")
}

// Progress counts a parent's sub-tickets: how many there are and how many
// are DONE.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// String is e.g. "2/3 done".
func (p Progress) String() string { return fmt.Sprintf("%d/%d done", p.Done, p.Total) }

// CheckLink says what is wrong with adding l to a project whose links are
// existing: a link to the ticket itself, a link across projects, a second
// parent, or a dependency cycle, which it names ("demo#5 → demo#4 →
// demo#5"). A cycle would leave every ticket on it waiting forever.
func CheckLink(l Link, existing []Link) error {
	if !l.Kind.Valid() {
		return Errorf(EINVALID, "unknown link kind %q; use blocked_by or parent", l.Kind)
	}
	if l.Ticket == l.Other {
		return Errorf(EINVALID, "%s cannot depend on itself", l.Ticket)
	}
	if l.Ticket.Project != l.Other.Project {
		return Errorf(EINVALID, "%s and %s are in different projects; a ticket can only depend on a ticket of its own project (the pick works per project)",
			l.Ticket, l.Other)
	}
	for _, e := range existing {
		if l.Kind == LinkParent && e.Kind == LinkParent && e.Ticket == l.Ticket && e.Other != l.Other {
			return Errorf(ECONFLICT, "%s is already a sub-ticket of %s; unlink it first", l.Ticket, e.Other)
		}
	}
	a, b := l.waitsFor()
	if path := waitPath(existing, b, a); path != nil {
		names := make([]string, 0, len(path)+1)
		names = append(names, a.String())
		for _, r := range path {
			names = append(names, r.String())
		}
		return Errorf(EINVALID, "linking %s to %s would make a dependency cycle: %s; no ticket on it could ever be picked",
			l.Ticket, l.Other, strings.Join(names, " → "))
	}
	return nil
}

// waitPath returns a path of "waits for" edges from from to to (both
// included), or nil when there is none: breadth first, so the shortest.
func waitPath(links []Link, from, to Ref) []Ref {
	next := map[Ref][]Ref{}
	for _, l := range links {
		a, b := l.waitsFor()
		next[a] = append(next[a], b)
	}
	prev := map[Ref]Ref{from: from}
	queue := []Ref{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var path []Ref
			for r := to; r != from; r = prev[r] {
				path = append(path, r)
			}
			path = append(path, from)
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return path
		}
		for _, n := range next[cur] {
			if _, seen := prev[n]; !seen {
				prev[n] = cur
				queue = append(queue, n)
			}
		}
	}
	return nil
}
