package board

import (
	"fmt"
	"strings"
)

// move is one edge of the board: from one state to another.
type move struct{ from, to State }

// transitions says who may make each allowed move. Any move not listed is
// refused. The runtime (System) may make the agent's moves on its behalf.
var transitions = map[move][]Actor{
	{Backlog, Research}:        {Human, System},
	{Backlog, InProgress}:      {Human},
	{Research, Backlog}:        {Human},
	{Research, InProgress}:     {Human, Agent, System},
	{InProgress, Backlog}:      {Human},
	{InProgress, Research}:     {Human},
	{InProgress, Verification}: {Agent, System},
	{Verification, InProgress}: {Human, System}, // System: the branch conflicts with the default branch at landing
	{Verification, Done}:       {Human},
	{Done, Backlog}:            {Human},
	{Verification, Backlog}:    {Human},
}

// entryRules explains, per target state, how a ticket may get there. It is
// the second half of every refusal message.
var entryRules = map[State]string{
	Backlog:      "a ticket goes back to BACKLOG only when a person moves it",
	Research:     "a ticket enters RESEARCH from BACKLOG or IN_PROGRESS, when a person moves it (or, from BACKLOG, the runtime, in a project whose agents take BACKLOG tickets)",
	InProgress:   "a ticket reaches IN_PROGRESS from BACKLOG or RESEARCH (a person, or the agent once it saved a plan), or from VERIFICATION when a person requests changes with feedback (or the runtime, when the work conflicts with the default branch)",
	Verification: "a ticket reaches VERIFICATION only from IN_PROGRESS, by the agent",
	Done:         "a ticket reaches DONE only from VERIFICATION, when a person approves it",
}

// RuleError is a move refused by a board rule. Its message names the move and
// the rule, e.g. "BACKLOG → VERIFICATION is not allowed; a ticket reaches
// VERIFICATION only from IN_PROGRESS, by the agent".
type RuleError struct {
	From, To State
	Actor    Actor
	Rule     string
}

// Error implements the error interface.
func (e *RuleError) Error() string {
	return fmt.Sprintf("%s → %s is not allowed; %s", e.From, e.To, e.Rule)
}

// ErrorCode classifies every rule error as EREFUSED.
func (e *RuleError) ErrorCode() string { return EREFUSED }

// MoveRequest describes a move someone asks for.
type MoveRequest struct {
	To    State
	Actor Actor
	// Feedback is the reason a person sends work back from VERIFICATION; it is
	// required for that move and ignored otherwise.
	Feedback string
	// Project is the agent settings of the ticket's project, which some
	// rules follow: the runtime takes a ticket out of BACKLOG only when the
	// project lets agents take BACKLOG tickets, and an agent leaves
	// RESEARCH only when the project does not ask a person to approve each
	// plan. A store sets them from the project, whatever the caller says.
	Project AgentSettings
}

// MoveComment returns the comment a move records besides the move itself,
// or nil: when a person sends work back from VERIFICATION to IN_PROGRESS,
// their feedback becomes a "feedback" comment by them. authorName is who
// they are. It assumes CheckMove allowed the move; the comment is checked.
func MoveComment(from State, req MoveRequest, authorName string) (*Comment, error) {
	if from != Verification || req.To != InProgress {
		return nil, nil
	}
	c := &Comment{AuthorType: req.Actor, AuthorName: authorName, Kind: KindFeedback, Content: req.Feedback}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckMove reports whether t may make the requested move, returning a
// *RuleError naming the rule when it may not.
func CheckMove(t Ticket, req MoveRequest) error {
	if !req.To.Valid() {
		return Errorf(EINVALID, "unknown state %q; use one of BACKLOG, RESEARCH, IN_PROGRESS, VERIFICATION, DONE", req.To)
	}
	if !req.Actor.Valid() {
		return Errorf(EINVALID, "unknown actor %q", req.Actor)
	}
	refuse := func(rule string) error {
		return &RuleError{From: t.State, To: req.To, Actor: req.Actor, Rule: rule}
	}
	if t.State == req.To {
		return refuse(fmt.Sprintf("the ticket is already in %s", t.State))
	}
	actors := transitions[move{t.State, req.To}]
	if !containsActor(actors, req.Actor) {
		return refuse(entryRules[req.To])
	}
	switch {
	case t.State == Backlog && req.Actor != Human && !req.Project.TakeBacklog:
		return refuse("only a person takes a ticket out of BACKLOG, unless the project lets agents take BACKLOG tickets ('bonsai project edit <slug> --take-backlog')")
	case t.State == Research && req.To == InProgress && req.Actor != Human && req.Project.PermissionMode.PersonApprovesPlans():
		return refuse("in this project a person approves each plan: ask for approval with ticket_ask, and a person moves the ticket to IN_PROGRESS")
	case t.State == Research && req.To == InProgress && req.Actor != Human && strings.TrimSpace(t.Plan) == "":
		return refuse("the agent must save a plan (ticket_plan) before it leaves RESEARCH")
	case t.State == Verification && req.To == InProgress && strings.TrimSpace(req.Feedback) == "":
		return refuse("sending work back needs feedback saying what to change (bonsai ticket return --feedback TEXT)")
	}
	return nil
}

// ApplyMove returns t after the move, with its sub-state set as the move
// implies: work sent back from VERIFICATION is "returned"; any other move
// clears the sub-state. It does not check the move; call CheckMove first.
func ApplyMove(t Ticket, req MoveRequest) Ticket {
	if t.State == Verification && req.To == InProgress {
		t.SubState = SubReturned
	} else {
		t.SubState = SubNone
	}
	t.State = req.To
	return t
}

func containsActor(actors []Actor, a Actor) bool {
	for _, x := range actors {
		if x == a {
			return true
		}
	}
	return false
}
