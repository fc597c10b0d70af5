// Package land lands an approved ticket's work on its project's default
// branch (docs/landing.md).
//
// A person's approval (`bonsai ticket approve`, the web UI's accept button,
// the API) goes through a Lander instead of moving the ticket to DONE
// directly. The project's landing mode decides what happens:
//
//   - merge: the runtime merges the ticket branch into the default branch
//     in the project's clone (squash, merge or rebase; fast-forward when
//     possible) as the approving person and pushes the default branch to
//     the project's repository, never with force;
//   - pr: the ticket's pull request is merged through the forge's API, by
//     the PullRequests implementation (internal/forge);
//   - none: nothing is merged; the ticket page says where the branch is.
//
// The ticket becomes DONE only once its work landed. A failure leaves it in
// VERIFICATION with a comment naming the cause and the fix, and records the
// error on the ticket's landing record; `bonsai ticket land` tries again.
package land
