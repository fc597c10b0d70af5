package web

import (
	"context"
	"net/http"

	"github.com/bonsai-run/bonsai/internal/board"
)

// decideApproval records a person's decision on one of the ticket's
// pending approvals. decision is "once", "always" or "deny", as the ticket
// page's buttons and the API name them.
func (s *Server) decideApproval(ctx context.Context, ref board.Ref, id, decision, note string) (board.Approval, error) {
	d := board.ApprovalDecision{Note: note, By: s.opts.Author}
	switch decision {
	case "once":
		d.Allow = true
	case "always":
		d.Allow, d.Always = true, true
	case "deny":
	default:
		return board.Approval{}, board.Errorf(board.EINVALID, "decision %q; use once (allow once), always (always allow for this project) or deny", decision)
	}
	return s.store.DecideApproval(ctx, ref, id, d)
}

// approvalForm answers a pending approval from the ticket page.
func (s *Server) approvalForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	id, note := r.PathValue("id"), r.PostFormValue("note")
	_, err = s.decideApproval(r.Context(), ref, id, r.PostFormValue("decision"), note)
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		v.Forms.ApprovalID, v.Forms.ApprovalNote, v.Forms.ApprovalErr = id, note, msg
	})
}

// apiDecideApproval answers a pending approval: {"decision": "once" |
// "always" | "deny", "note": "…"}; the answer is the decided approval.
func (s *Server) apiDecideApproval(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Decision string `json:"decision"`
		Note     string `json:"note"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	a, err := s.decideApproval(r.Context(), ref, r.PathValue("id"), in.Decision, in.Note)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}
