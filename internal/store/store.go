// Package store defines the persistence contract of the board and the test
// suite every implementation must pass.
//
// The Store interface is the whole contract, used by the contract tests and
// by the CLI that wires a concrete store. Consumers such as the heartbeat and
// the web UI declare the few methods they need as their own small interfaces.
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Store persists the board. Every method that writes does so in one
// transaction that also appends the events recording the change. Errors are
// classified with board error codes: ENOTFOUND for a missing project or
// ticket, ECONFLICT for a duplicate slug, EINVALID for bad input, and a
// *board.RuleError (EREFUSED) for a move the board rules forbid. Times are
// in UTC with millisecond precision; a change that changes nothing writes
// no event.
type Store interface {
	Links
	// CreateProject validates p, assigns its ID and timestamps and stores it.
	CreateProject(ctx context.Context, p board.Project) (board.Project, error)
	// Project returns the project with the given slug, archived or not.
	Project(ctx context.Context, slug string) (board.Project, error)
	// Projects lists projects by slug; archived ones only when asked.
	Projects(ctx context.Context, f ProjectFilter) ([]board.Project, error)
	// UpdateProject changes the fields set in u.
	UpdateProject(ctx context.Context, slug string, u board.ProjectPatch) (board.Project, error)
	// ArchiveProject marks the project inactive: it keeps its tickets but
	// agents no longer pick from it.
	ArchiveProject(ctx context.Context, slug string) (board.Project, error)
	// RestoreProject makes an archived project active again: agents pick
	// its tickets again. Restoring an active project changes nothing.
	RestoreProject(ctx context.Context, slug string) (board.Project, error)

	// CreateTicket validates t and stores it in t.ProjectSlug's project with
	// the next ticket number of that project, allocated in the transaction.
	CreateTicket(ctx context.Context, t board.Ticket, actor board.Actor) (board.Ticket, error)
	// Ticket returns one ticket.
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	// Tickets lists tickets matching f, by project slug then number. A
	// filter naming an unknown project is ENOTFOUND.
	Tickets(ctx context.Context, f TicketFilter) ([]board.Ticket, error)
	// CountTickets counts the tickets matching f, ignoring f.Limit.
	CountTickets(ctx context.Context, f TicketFilter) (int, error)
	// TicketCounts counts tickets per project slug and state, archived
	// projects included. States without tickets are absent.
	TicketCounts(ctx context.Context) (map[string]map[board.State]int, error)
	// UpdateTicket changes the fields set in u.
	UpdateTicket(ctx context.Context, ref board.Ref, u board.TicketPatch, actor board.Actor) (board.Ticket, error)
	// MoveTicket applies board.CheckMove and board.ApplyMove. Feedback, when
	// the move sends work back, is added as a "feedback" comment by the actor
	// in the same transaction.
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)

	// AddComment validates c and adds it to the ticket, applying
	// board.ApplyComment to the ticket's sub-state and bumping its updated
	// time in the same transaction.
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
	// Comments returns a ticket's thread, oldest first, in the order written.
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	// ResolveComments marks the given human comments of the ticket resolved;
	// other comments are left as they are. An ID that is not a comment of
	// the ticket is ENOTFOUND and nothing changes.
	ResolveComments(ctx context.Context, ref board.Ref, commentIDs []string) error

	// RequestApproval records a command the command policy held for a
	// person (a.Command, a.Rule, a.Reason, a.Pattern, a.RunID) in one
	// transaction: the pending approval, the request comment by the agent
	// (kind "permission", authorName, board.RequestText), the ticket
	// blocked, and an "approval.requested" event. When the ticket already
	// has a pending approval for the identical command, no new one is made:
	// the ticket is blocked again (a person's plain comment may have
	// unblocked it) and that approval is returned.
	RequestApproval(ctx context.Context, ref board.Ref, a board.Approval, authorName string) (board.Approval, error)
	// DecideApproval records a person's decision on the ticket's pending
	// approval id in one transaction: its status, always and note, the
	// person's "permission" comment (board.DecisionText), which unblocks
	// the ticket by board.ApplyComment's rule, an "approval.decided"
	// event, and, for "always" with a pattern, the pattern appended to
	// the project's Allow list when it is not there and the list has room.
	// An id that is not an approval of the ticket is ENOTFOUND; a decided
	// one is ECONFLICT.
	DecideApproval(ctx context.Context, ref board.Ref, id string, d board.ApprovalDecision) (board.Approval, error)
	// Approvals lists a ticket's approvals, oldest first.
	Approvals(ctx context.Context, ref board.Ref) ([]board.Approval, error)
	// GrantedApproval returns the approval that lets command (compared
	// exactly) run on the ticket now: one allowed once for this ticket and
	// not yet used, else one allowed always on any ticket of its project.
	// None is ENOTFOUND.
	GrantedApproval(ctx context.Context, ref board.Ref, command string) (board.Approval, error)
	// UseApproval records that an approval of the ticket let its command
	// run: a once-only approval is used up. Using an always-approval of
	// the ticket's project changes nothing; a used, pending or denied one
	// is ECONFLICT.
	UseApproval(ctx context.Context, ref board.Ref, id string) error
	// MarkApprovalsTold records that the agent was told the decisions on
	// the given approvals of the ticket. An ID that is not an approval of
	// the ticket is ENOTFOUND, a pending one ECONFLICT; either way nothing
	// changes.
	MarkApprovalsTold(ctx context.Context, ref board.Ref, ids []string) error

	// StartRun records a run in status "running" and returns it with its ID.
	// Starting a run bumps the ticket's updated time, so the pick policy's
	// "least recently updated first" rotates through in-progress tickets.
	StartRun(ctx context.Context, r board.Run) (board.Run, error)
	// FinishRun records the outcome of a run (status, tokens, cost, turns,
	// error, and the heartbeat's progress verdict).
	// A run that is no longer running is ECONFLICT.
	FinishRun(ctx context.Context, r board.Run) (board.Run, error)
	// Runs lists a ticket's runs, newest first.
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	// RecentRuns lists the newest runs across all projects; a limit of 0 or
	// less means a default.
	RecentRuns(ctx context.Context, limit int) ([]board.Run, error)
	// RunningRuns lists the runs still running, newest first, however old.
	RunningRuns(ctx context.Context) ([]board.Run, error)
	// Spend sums the tokens and cost of the project's runs started at or
	// after since (a project's daily budget); an empty slug sums every
	// project's. An unknown slug is ENOTFOUND.
	Spend(ctx context.Context, projectSlug string, since time.Time) (Spend, error)
	// RequestStop asks the running run of a ticket to stop, for by (who
	// asked): the process running it polls RunControl and stops it. A
	// ticket with no running run is ECONFLICT; asking twice keeps the
	// first request.
	RequestStop(ctx context.Context, ref board.Ref, by string) (board.Run, error)
	// RunControl returns what the process running a run polls: its
	// status, a stop request, and its ticket's newest unresolved human
	// comment time. An unknown run is ENOTFOUND.
	RunControl(ctx context.Context, runID string) (board.RunControl, error)
	// RunControls returns RunControl's answer for each of the runs that
	// exist, keyed by ID, in one query: a heartbeat's shared watcher reads
	// all its runs at once.
	RunControls(ctx context.Context, runIDs []string) (map[string]board.RunControl, error)
	// InterruptRuns marks every run still "running" as "interrupted", with
	// an event each, and returns how many it marked. A heartbeat calls it
	// while it holds the heartbeat lock, so no live run is affected.
	InterruptRuns(ctx context.Context) (int, error)

	// Pick returns, for each active project (or only the named one), the
	// ticket the pick policy chooses, by project slug; projects with nothing
	// to pick, and a named project that is archived, give none. It is plain
	// SQL and must agree with board.PickTicket.
	Pick(ctx context.Context, projectSlug string) ([]board.Pick, error)
	// NextPicks returns up to n tickets of the active project in the
	// pick policy's order (Pick's ticket first, unless left out), with
	// their classes, leaving out those a lease holds or a run still
	// works: what a beat may start beside them in a project whose agents
	// work several tickets at once. An unknown project is ENOTFOUND.
	NextPicks(ctx context.Context, projectSlug string, n int) ([]board.Pick, error)
	// Overview lists projects by slug (archived ones only when f asks)
	// with what a board listing shows of each: its ticket counts and the
	// ticket the next heartbeat would pick there. It agrees with Projects,
	// TicketCounts and Pick, and costs one read, however many tickets.
	Overview(ctx context.Context, f ProjectFilter) ([]ProjectOverview, error)

	// Events returns up to limit events with an ID greater than afterID,
	// oldest first; a limit of 0 or less means a default page.
	Events(ctx context.Context, afterID int64, limit int) ([]board.Event, error)

	// Notifications are the outbox of docs/notifications.md.
	Notifications

	// Schedules are the scheduled work of docs/schedules.md.
	Schedules

	// Landing returns how the ticket's work lands: its pull request, the
	// commit it landed as, its last failure. A ticket without one is
	// ENOTFOUND.
	Landing(ctx context.Context, ref board.Ref) (board.Landing, error)
	// SaveLanding validates l and stores it as its ticket's landing,
	// replacing the one before, with a "landing.updated" event when
	// something changed; UpdatedAt is set to the transaction's time
	// (kept when nothing changed). An unknown ticket is ENOTFOUND.
	SaveLanding(ctx context.Context, l board.Landing) (board.Landing, error)
	// Landings lists landings matching f, by project slug then ticket
	// number.
	Landings(ctx context.Context, f LandingFilter) ([]board.Landing, error)

	// Review returns the commits recorded for review of the ticket's
	// work; a zero Review (no Tip) when none were recorded. An unknown
	// ticket is ENOTFOUND.
	Review(ctx context.Context, ref board.Ref) (board.Review, error)
	// SetReview validates r and records it as its ticket's review,
	// replacing the one before; RecordedAt is set to the transaction's
	// time. An unknown ticket is ENOTFOUND.
	SetReview(ctx context.Context, r board.Review) (board.Review, error)

	// Leases are the workers' holds on tickets (issue 18).
	Leases

	// Workers are the workers' records of their beats (issue 18).
	Workers

	// Transcripts are tickets' transcripts and live files (issue 18).
	Transcripts
	Stats // the stored facts of the insights (issue 32)

	// Trackers are the issue tracker syncs of docs/trackers.md.
	Trackers
	Hooks         // the inbound webhooks of docs/webhooks.md
	TrackerLimits // the trackers' rate limits, kept across beats

	Attachments       // files on tickets and comments (issue 30)
	NotifyAttachments // the files a notification links (issue 30)
	Variants          // best of N (issue 31)

	// Close releases the store's resources.
	Close() error
}

// Leases are the holds workers on several machines take on tickets while
// their agents work them: one lease per ticket, and at most the project's
// max-agents setting (board.AgentSettings.Agents) per project, so that
// many agents per project across machines. Leases write no events but when they expire:
// a renewal every few seconds is not a board change.
type Leases interface {
	// AcquireLease leases the ticket to worker until now+ttl. The
	// worker's own lease on it is renewed. Another worker's lease on the
	// ticket is ECONFLICT, and so are the project's max-agents leases
	// held, expired or not (an expired one waits for ExpireLeases, which
	// ends its run), and limit > 0 leases held across the board (the
	// global concurrency limit). An unknown ticket is ENOTFOUND; a ttl of zero
	// or less, or no worker, EINVALID.
	AcquireLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration, limit int) (board.Lease, error)
	// RenewLease moves the worker's lease on the ticket to now+ttl. A
	// lease the worker does not hold (released, expired and ended, never
	// taken) is ECONFLICT: its agent must stop.
	RenewLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration) (board.Lease, error)
	// ReleaseLease ends the worker's lease on the ticket; one it does not
	// hold is ECONFLICT.
	ReleaseLease(ctx context.Context, ref board.Ref, worker string) error
	// ExpireLeases ends every lease past its time: the runs its worker
	// still has running on its ticket are marked interrupted (a
	// run.finished event each) and a lease.expired event is written, in
	// one transaction. It returns the leases it ended.
	ExpireLeases(ctx context.Context) ([]board.Lease, error)
	// Leases lists the leases, expired ones included, by project slug
	// and ticket number.
	Leases(ctx context.Context) ([]board.Lease, error)
}

// Workers is the registry of the workers of a board several machines
// share: each beat records its worker, so the board knows every worker,
// also one that holds no lease and ran nothing lately. Records write no
// events: a beat every minute is not a board change.
type Workers interface {
	// RecordBeat stores b (board.CheckWorkerBeat, else EINVALID) as its
	// worker's last beat, seen at the store's time, which it returns in
	// b.SeenAt (a zero b.StartedAt is that time too). It replaces the
	// record of the same host and data directory, whichever process
	// wrote it. A b with StoppedAt set records that the worker stopped,
	// at the store's time; one without clears it. Workers not seen for
	// board.WorkerForgotten are dropped in the same transaction.
	RecordBeat(ctx context.Context, b board.WorkerBeat) (board.WorkerBeat, error)
	// Workers lists the workers seen within board.WorkerForgotten, the
	// most recently seen first, then by ID.
	Workers(ctx context.Context) ([]board.WorkerBeat, error)
}

// Transcripts keep tickets' session transcripts in the store, line by line
// and append-only, and the live file of the message being streamed. On a
// board several machines share they are the truth: any worker resumes any
// ticket from them, any `bonsai serve` shows them. A file made of the
// stored lines, each followed by a newline, is byte for byte the session
// file that wrote them, so offsets into it agree on every machine. They
// write no events.
type Transcripts interface {
	// AppendTranscript stores lines as the ticket's transcript lines
	// numbered first, first+1, … (the header line is number 0). first
	// must be the number of lines already stored, else ECONFLICT and
	// nothing is written: another writer appended, or the caller's copy
	// is stale. Each line is one JSON value without its newline (EINVALID
	// otherwise). An unknown ticket is ENOTFOUND.
	AppendTranscript(ctx context.Context, ticketID string, first int64, lines [][]byte) error
	// TranscriptLines calls fn with each stored line from number from on,
	// in order; an error from fn stops the walk and is returned. line is
	// only valid during the call.
	TranscriptLines(ctx context.Context, ticketID string, from int64, fn func(n int64, line []byte) error) error
	// TranscriptSize returns how many lines the ticket's transcript has
	// and the size in bytes of the file they make (each line and its
	// newline); 0, 0 for none.
	TranscriptSize(ctx context.Context, ticketID string) (lines, size int64, err error)
	// WriteLive stores data as the ticket's live file when fresh (a new
	// message: it replaces what was there), else appends data to it. Each
	// write bumps the live file's version. An unknown ticket is
	// ENOTFOUND.
	WriteLive(ctx context.Context, ticketID string, data []byte, fresh bool) error
	// Live returns the ticket's live file and its version: nil and 0 when
	// there is none.
	Live(ctx context.Context, ticketID string) (data []byte, version int64, err error)
}

// CheckTranscriptLines refuses lines a transcript cannot hold: an empty
// line, one holding a newline, one that is not a JSON value.
func CheckTranscriptLines(lines [][]byte) error {
	for i, l := range lines {
		switch {
		case len(l) == 0:
			return board.Errorf(board.EINVALID, "transcript line %d is empty", i)
		case bytes.ContainsAny(l, "\n\r"):
			return board.Errorf(board.EINVALID, "transcript line %d holds a line break", i)
		case !utf8.Valid(l) || !json.Valid(l):
			return board.Errorf(board.EINVALID, "transcript line %d is not JSON in UTF-8", i)
		}
	}
	return nil
}

// CheckLive refuses live file data a store cannot hold as text: bytes
// that are not UTF-8, or a NUL.
func CheckLive(data []byte) error {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return board.Errorf(board.EINVALID, "live file data is not UTF-8 text")
	}
	return nil
}

// Notifications is the notification outbox and its channels. An event that
// notifies (an agent's question, a move to VERIFICATION, a failed run...)
// gets its outbox rows, one per channel that wants it, in the transaction
// that appends the event, so a notification exists exactly when its event
// does.
type Notifications interface {
	// AddChannel validates c and stores it with an ID. A taken name is
	// ECONFLICT; an unknown ProjectSlug is ENOTFOUND.
	AddChannel(ctx context.Context, c board.Channel) (board.Channel, error)
	// Channels lists the channels by name, settings included.
	Channels(ctx context.Context) ([]board.Channel, error)
	// RemoveChannel removes a channel and its notifications; an unknown
	// name is ENOTFOUND.
	RemoveChannel(ctx context.Context, name string) error
	// NotificationList lists notifications, newest first.
	NotificationList(ctx context.Context, f NotificationFilter) ([]board.Notification, error)
	// NotificationsPending reports whether any notification waits to be
	// sent, due or not: the cheap check that lets a process with nothing
	// to deliver skip claiming.
	NotificationsPending(ctx context.Context) (bool, error)
	// ClaimNotifications leases up to limit pending notifications that are
	// due, oldest first, to owner until now+lease, counting an attempt for
	// each. A notification leased to another owner whose lease has not
	// ended is never claimed, so two processes delivering at once never
	// send one twice.
	ClaimNotifications(ctx context.Context, owner string, lease time.Duration, limit int) ([]board.Delivery, error)
	// SettleNotification records the outcome of owner's attempt: sent,
	// pending again at o.RetryAt, or failed. A notification owner no
	// longer leases is left as it is and reported as ECONFLICT.
	SettleNotification(ctx context.Context, id int64, owner string, o board.Outcome) error
	// NoteBlockers records the causes that keep the project's agents from
	// running now: a cause not noted before appends an agents.blocked event
	// (and so its notifications); causes no longer given are forgotten, so
	// they notify again when they come back. It returns how many causes
	// were new.
	NoteBlockers(ctx context.Context, projectSlug string, causes []string) (int, error)
}

// Schedules stores schedules, fires them and keeps their firings. A
// schedule is named by its project's slug and its name.
type Schedules interface {
	// CreateSchedule validates s and stores it with an ID; s.NextFire is
	// its first firing, computed by the caller. A taken name in the
	// project is ECONFLICT; an unknown project ENOTFOUND.
	CreateSchedule(ctx context.Context, s board.Schedule, actor board.Actor) (board.Schedule, error)
	// Schedule returns one schedule.
	Schedule(ctx context.Context, projectSlug, name string) (board.Schedule, error)
	// ScheduleList lists schedules by project slug then name; a filter
	// naming an unknown project is ENOTFOUND.
	ScheduleList(ctx context.Context, f ScheduleFilter) ([]board.Schedule, error)
	// UpdateSchedule changes the fields set in u (pause and resume are
	// u.Paused, with the NextFire a resume gives). A change that changes
	// something resets the pre-check failures and writes one
	// "schedule.updated" event naming the fields.
	UpdateSchedule(ctx context.Context, projectSlug, name string, u board.SchedulePatch, actor board.Actor) (board.Schedule, error)
	// DeleteSchedule removes a schedule and its firings; the tickets it
	// created stay.
	DeleteSchedule(ctx context.Context, projectSlug, name string, actor board.Actor) error
	// DueSchedules lists the schedules of active projects that are not
	// paused and whose NextFire is at or before now, oldest NextFire
	// first. It is one indexed query: an idle beat costs next to nothing
	// however many schedules there are.
	DueSchedules(ctx context.Context, now time.Time) ([]board.Schedule, error)
	// FireSchedule records one firing in one transaction: the schedule's
	// NextFire moved from f.DueAt to f.Next (compare-and-set: when it no
	// longer is f.DueAt, or the schedule was paused, another beat fired it
	// and nothing is written: ECONFLICT), its failures reset, f.Ticket
	// created for FiringCreated (as the system, in the template's start
	// state) and remembered as the schedule's last ticket, the firing, and
	// a "schedule.fired" event.
	FireSchedule(ctx context.Context, f board.Fire) (board.Firing, error)
	// FailSchedule records a failed pre-check like FireSchedule records a
	// firing (compare-and-set on f.DueAt; f.Next is the retry time, the
	// caller's backoff): failures counted, LastError set to f.Detail, a
	// "failed" firing and a "schedule.failed" event, which notifies a
	// person on the first failure of a streak.
	FailSchedule(ctx context.Context, f board.Fire) (board.Firing, error)
	// Firings lists a schedule's firings, newest first; a limit of 0 or
	// less means a default.
	Firings(ctx context.Context, projectSlug, name string, limit int) ([]board.Firing, error)
}

// ScheduleFilter selects schedules; zero fields match everything.
type ScheduleFilter struct {
	ProjectSlug string
}

// NotificationFilter selects notifications; zero fields match everything.
type NotificationFilter struct {
	Channel string
	Status  board.NotifyStatus
	// Limit caps how many are returned; 0 means a default.
	Limit int
}

// ProjectOverview is a project as `bonsai status` and the web status page
// list it.
type ProjectOverview struct {
	// Project carries only the slug, name, active flag, model, permission
	// mode and sandbox setting.
	Project board.Project
	// Counts are the project's tickets by state; states without tickets
	// are absent.
	Counts map[board.State]int
	// Pick is what Pick gives for the project, its ticket carrying only the
	// project slug, number, title, state, sub-state and priority; nil when
	// nothing is pickable or the project is archived.
	Pick *board.Pick
}

// LandingFilter selects landings; zero fields match everything.
type LandingFilter struct {
	// ProjectSlug selects one project's landings; an unknown slug is
	// ENOTFOUND.
	ProjectSlug string
	// OpenPRs selects only landings whose pull request is open.
	OpenPRs bool
}

// ProjectFilter selects projects.
type ProjectFilter struct {
	IncludeArchived bool
}

// Spend is what a set of runs consumed.
type Spend struct {
	Runs int
	board.Usage
}

// TicketFilter selects tickets; zero fields match everything.
type TicketFilter struct {
	ProjectSlug string
	State       board.State
	// Blocked selects only tickets whose agent waits on a person's answer.
	Blocked bool
	// Limit caps how many tickets Tickets returns; 0 means all.
	Limit int
}
