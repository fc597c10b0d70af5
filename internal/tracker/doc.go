// Package tracker reads and writes the issue trackers teams keep their
// work in, as a project's inbox: GitHub, GitLab and Gitea (or Forgejo)
// issues through the forges' REST APIs (internal/forge's HTTP core).
//
// A Tracker lists the open issues matching a project's Query with one
// conditional request (an unchanged list costs a 304, or one answer
// compared by a digest of the fields read), reads one issue (closed,
// deleted or moved ones too), reads an issue's comments after a cursor
// (new ones, and ones edited since), posts a comment marked as Bonsai's
// so that it is never read back as a person's, changes the labels that
// mirror a ticket's state, and tells whether a commenter may push to
// the repository: only their words may reach an agent.
//
// Checklist turns the task list of an issue's body into acceptance
// criteria. Every failure is an *Error naming the cause and the fix.
//
// internal/trackersync runs it each beat for the projects with a tracker
// (docs/trackers.md).
package tracker
