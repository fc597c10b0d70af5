// Package forgesync is the pr landing mode's runtime side (docs/forges.md):
// it opens or updates a ticket's pull request when the ticket reaches
// VERIFICATION, follows open pull requests on every beat with one
// conditional request each (an unchanged one answers 304), turns what
// happened on the forge into board moves and comments (merged: DONE;
// changes requested or review comments: the ticket returns with the
// review quoted as feedback; closed: a comment that blocks the ticket;
// failing checks: reported), and merges a pull request through the
// forge's API when a person approves the ticket in Bonsai
// (land.PullRequests).
//
// It asks no model and knows the board only through the small Board
// interface.
package forgesync
