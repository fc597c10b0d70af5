package board

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Reopening (docs/landing.md, "Reopening a DONE ticket"): a ticket whose
// work landed stays DONE, because its branch is on the default branch and
// its landing record says so; moving it back would leave a ticket that
// can never be approved or landed again. More work on it is a follow-up:
// a new BACKLOG ticket that names and quotes the original, which gets a
// comment naming the follow-up. A DONE ticket whose work did not land
// (none mode, or approved before its project landed work) may still go
// back to BACKLOG, and lands later from its own branch.

// Landed reports whether the ticket's work reached the default branch:
// a landed commit is recorded, or its pull request was merged.
func (l Landing) Landed() bool { return l.Commit != "" || l.PRState == PRMerged }

// CheckLeaveDone refuses to move DONE ticket t, whose landing record is l,
// out of DONE when its work landed, naming the follow-up that reopens it.
// Callers check it before MoveTicket (the board's own rules cannot see
// the landing record).
func CheckLeaveDone(t Ticket, l Landing, req MoveRequest) error {
	if t.State != Done || req.To == Done || !l.Landed() {
		return nil
	}
	what := "its work landed"
	if l.Commit != "" {
		what = fmt.Sprintf("its work landed as %.12s", l.Commit)
	}
	return &RuleError{From: t.State, To: req.To, Actor: req.Actor,
		Rule: fmt.Sprintf("%s is DONE and %s, so it stays DONE; to change it, open a follow-up ticket: `bonsai ticket reopen %s` (on its page: Reopen as follow-up)", t.Ref(), what, t.Ref())}
}

// FollowUp returns the ticket that reopens DONE ticket t as a follow-up,
// for a person to create: in BACKLOG, at t's priority, titled
// "Follow-up: <t's title>" (or title, when given), its description naming
// t (and the landed commit l.Commit) and quoting its description and
// criteria, after note when given. criteria are the follow-up's own.
func FollowUp(t Ticket, l Landing, title, note string, criteria []string) (Ticket, error) {
	if t.State != Done {
		return Ticket{}, Errorf(EREFUSED, "%s is %s, not DONE: move it instead of reopening it (`bonsai ticket move %s <STATE>`)", t.Ref(), t.State, t.Ref())
	}
	if strings.TrimSpace(title) == "" {
		title = cut("Follow-up: "+t.Title, MaxTitle)
	}
	f := Ticket{ProjectSlug: t.ProjectSlug, Title: title, Priority: t.Priority, State: Backlog,
		Criteria: criteria, Description: followUpText(t, l, note)}
	if err := f.Validate(); err != nil {
		return Ticket{}, err
	}
	return f, nil
}

// FollowUpComment is the comment the original ticket gets, by author,
// once follow-up f exists.
func FollowUpComment(f Ticket, author string) Comment {
	return Comment{AuthorType: Human, AuthorName: author, Kind: KindNote,
		Content: fmt.Sprintf("Reopened as a follow-up: %s, %q.", f.Ref(), f.Title)}
}

// followUpText is the follow-up's description.
func followUpText(t Ticket, l Landing, note string) string {
	var b strings.Builder
	if note = strings.TrimSpace(note); note != "" {
		b.WriteString(note + "\n\n")
	}
	fmt.Fprintf(&b, "Follow-up of %s, %q", t.Ref(), t.Title)
	if l.Commit != "" {
		fmt.Fprintf(&b, ", whose work landed as %.12s", l.Commit)
	}
	b.WriteString(".\n")
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString("\n" + quote(d) + "\n")
	}
	if len(t.Criteria) > 0 {
		fmt.Fprintf(&b, "\nThe acceptance criteria of %s:\n", t.Ref())
		for _, c := range t.Criteria {
			fmt.Fprintf(&b, "- %s\n", strings.Join(strings.Fields(c), " "))
		}
	}
	return cut(b.String(), MaxDescription)
}

// quote prefixes every line of s with "> ".
func quote(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = strings.TrimRight("> "+line, " ")
	}
	return strings.Join(lines, "\n")
}

// cut shortens s to at most n bytes, at a rune boundary, ending in "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	i := n - len(ell)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + ell
}
