package board

import "slices"

// maxOutcomeErr bounds the error text a settled notification keeps.
const maxOutcomeErr = 1000

// Settle is how a notification's row records o: its status (sent;
// pending again, with retry, when RetryAt is set; else failed) and its
// error, cut to maxOutcomeErr bytes. A retry is not settled yet.
func (o Outcome) Settle() (status, errText string, retry bool) {
	switch {
	case o.Sent:
		return "sent", "", false
	case !o.RetryAt.IsZero():
		status, retry = "pending", true
	default:
		status = "failed"
	}
	errText = o.Err
	if len(errText) > maxOutcomeErr {
		errText = errText[:maxOutcomeErr] + "…"
	}
	return status, errText, retry
}

// BlockerChanges compares the causes noted before (known) that keep a
// project's agents from running with those now: the ones gone, and the
// new ones, each once, "" left out.
func BlockerChanges(known, now []string) (gone, added []string) {
	for _, c := range known {
		if !slices.Contains(now, c) {
			gone = append(gone, c)
		}
	}
	for _, c := range now {
		if c != "" && !slices.Contains(known, c) && !slices.Contains(added, c) {
			added = append(added, c)
		}
	}
	return gone, added
}
