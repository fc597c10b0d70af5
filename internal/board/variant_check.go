package board

// CheckVariants says why ticket t may not be run N ways now, or nil:
// isVariant when t is itself a variant, inFlight when variants of it
// still run, running when an agent runs on it. Each reason is EREFUSED.
func CheckVariants(t Ticket, isVariant, inFlight, running bool) error {
	refuse := func(format string, args ...any) error {
		return Errorf(EREFUSED, "%s: "+format, append([]any{t.Ref()}, args...)...)
	}
	switch {
	case isVariant:
		return refuse("it is itself a variant; run its ticket as variants instead")
	case inFlight:
		return refuse("its variants are still in flight; approve or return one first (bonsai ticket variants %s)", t.Ref())
	case t.State != InProgress:
		return refuse("it is in %s; only a ticket in IN_PROGRESS runs as variants (move it there first)", t.State)
	case t.SubState == SubBlocked:
		return refuse("it is blocked waiting for a person; answer it first")
	case running:
		return refuse("an agent is running on it; wait for its run to end, or stop it (bonsai ticket stop %s)", t.Ref())
	}
	return nil
}

// CheckVariantRequest refuses a request by actor to run a ticket n ways,
// with comment (none when it has no content), that cannot be met.
func CheckVariantRequest(actor Actor, n int, comment Comment) error {
	if !actor.Valid() {
		return Errorf(EINVALID, "unknown actor %q", actor)
	}
	if n < MinVariants || n > MaxVariants {
		return Errorf(EINVALID, "give %d to %d variants, not %d", MinVariants, MaxVariants, n)
	}
	if comment.Content != "" {
		return comment.Validate()
	}
	return nil
}

// VariantTicket is the ticket of variant n of t, run as spec: in
// IN_PROGRESS with t's description, criteria, plan and priority.
func VariantTicket(t Ticket, n int, spec VariantSpec) (Ticket, error) {
	return NewTicket(Ticket{ProjectSlug: t.ProjectSlug, Title: VariantTitle(t, n, spec), Description: t.Description,
		Criteria: t.Criteria, Plan: t.Plan, State: InProgress, Priority: t.Priority})
}
