package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/store"
)

// scheduleStore is what the Schedules page and API need of the store.
type scheduleStore interface {
	CreateSchedule(ctx context.Context, s board.Schedule, actor board.Actor) (board.Schedule, error)
	Schedule(ctx context.Context, projectSlug, name string) (board.Schedule, error)
	ScheduleList(ctx context.Context, f store.ScheduleFilter) ([]board.Schedule, error)
	UpdateSchedule(ctx context.Context, projectSlug, name string, u board.SchedulePatch, actor board.Actor) (board.Schedule, error)
	DeleteSchedule(ctx context.Context, projectSlug, name string, actor board.Actor) error
	Firings(ctx context.Context, projectSlug, name string, limit int) ([]board.Firing, error)
}

var _ scheduleStore = store.Store(nil)

func (s *Server) schedules() (scheduleStore, error) {
	ss, ok := s.store.(scheduleStore)
	if !ok {
		return nil, errors.New("this store keeps no schedules")
	}
	return ss, nil
}

// scheduleInput is a schedule as the API and the page's forms give it.
// On edit, absent fields keep their value.
type scheduleInput struct {
	Name        *string   `json:"name"`
	Kind        *string   `json:"kind"`
	Expr        *string   `json:"expr"`
	TimeZone    *string   `json:"timezone"`
	Anchor      *string   `json:"anchor"`
	Title       *string   `json:"title"`
	Description *string   `json:"description"`
	Criteria    *[]string `json:"criteria"`
	Priority    *int      `json:"priority"`
	StartState  *string   `json:"startState"`
	PreCheck    *string   `json:"preCheck"`
	Overlap     *string   `json:"overlap"`
	Paused      *bool     `json:"paused"`
}

// apply sets in's fields on sc.
func (in scheduleInput) apply(sc *board.Schedule) error {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&sc.Kind, in.Kind)
	set(&sc.Expr, in.Expr)
	set(&sc.TimeZone, in.TimeZone)
	set(&sc.Title, in.Title)
	if in.Description != nil {
		sc.Description = *in.Description
	}
	set(&sc.PreCheck, in.PreCheck)
	if in.Criteria != nil {
		sc.Criteria = nonEmpty(*in.Criteria)
	}
	if in.Priority != nil {
		sc.Priority = *in.Priority
	}
	if in.StartState != nil {
		st, err := board.ParseState(*in.StartState)
		if err != nil {
			return err
		}
		sc.StartState = st
	}
	if in.Overlap != nil {
		ov, err := board.ParseOverlap(*in.Overlap)
		if err != nil {
			return err
		}
		sc.Overlap = ov
	}
	if in.Paused != nil {
		sc.Paused = *in.Paused
	}
	if in.Anchor != nil && strings.TrimSpace(*in.Anchor) != "" {
		loc, err := schedule.LoadZone(sc.TimeZone)
		if err != nil {
			return err
		}
		t, err := schedule.ParseTime(strings.TrimSpace(*in.Anchor), loc)
		if err != nil {
			return board.Errorf(board.EINVALID, `schedule anchor %q is not a time; for example "2026-12-01 09:00"`, *in.Anchor)
		}
		sc.Anchor = t
	}
	return nil
}

func nonEmpty(ls []string) []string {
	out := []string{}
	for _, l := range ls {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// createSchedule creates a schedule of project slug from in, as a person.
func (s *Server) createSchedule(ctx context.Context, slug string, in scheduleInput) (board.Schedule, error) {
	ss, err := s.schedules()
	if err != nil {
		return board.Schedule{}, err
	}
	sc := board.Schedule{ProjectSlug: slug, TimeZone: "UTC", Priority: board.DefaultPriority, StartState: board.Backlog, Overlap: board.OverlapSkip}
	if in.Name != nil {
		sc.Name = strings.TrimSpace(*in.Name)
	}
	if err := board.ValidateScheduleName(sc.Name); err != nil {
		return sc, err
	}
	if err := in.apply(&sc); err != nil {
		return sc, err
	}
	if sc, err = schedule.Prepare(sc, s.opts.Now()); err != nil {
		return sc, err
	}
	return ss.CreateSchedule(ctx, sc, board.Human)
}

// editSchedule applies in to a schedule, recomputing its next firing when
// its timing changed.
func (s *Server) editSchedule(ctx context.Context, slug, name string, in scheduleInput) (board.Schedule, error) {
	ss, err := s.schedules()
	if err != nil {
		return board.Schedule{}, err
	}
	old, err := ss.Schedule(ctx, slug, name)
	if err != nil {
		return old, err
	}
	sc := old
	paused := in.Paused
	in.Paused = nil
	if err := in.apply(&sc); err != nil {
		return old, err
	}
	p, err := schedule.Patch(old, sc, s.opts.Now())
	if err != nil {
		return old, err
	}
	if sc, err = ss.UpdateSchedule(ctx, slug, name, p, board.Human); err != nil {
		return sc, err
	}
	if paused != nil && *paused != sc.Paused {
		return s.setSchedulePaused(ctx, slug, name, *paused)
	}
	return sc, nil
}

// setSchedulePaused pauses or resumes; resuming fires next after now.
func (s *Server) setSchedulePaused(ctx context.Context, slug, name string, pause bool) (board.Schedule, error) {
	ss, err := s.schedules()
	if err != nil {
		return board.Schedule{}, err
	}
	if pause {
		return ss.UpdateSchedule(ctx, slug, name, schedule.Pause(), board.Human)
	}
	sc, err := ss.Schedule(ctx, slug, name)
	if err != nil {
		return sc, err
	}
	return ss.UpdateSchedule(ctx, slug, name, schedule.Resume(sc, s.opts.Now()), board.Human)
}

// scheduleDetail is a schedule with its last firings, as GET
// /api/projects/{slug}/schedules/{name} answers.
type scheduleDetail struct {
	board.Schedule
	Firings []board.Firing `json:"firings"`
}

func (s *Server) apiSchedules(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.schedules()
	if err != nil {
		return err
	}
	list, err := ss.ScheduleList(r.Context(), store.ScheduleFilter{ProjectSlug: r.PathValue("slug")})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, list)
}

func (s *Server) apiCreateSchedule(w http.ResponseWriter, r *http.Request) error {
	var in scheduleInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	sc, err := s.createSchedule(r.Context(), r.PathValue("slug"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, sc)
}

func (s *Server) apiSchedule(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.schedules()
	if err != nil {
		return err
	}
	slug, name := r.PathValue("slug"), r.PathValue("name")
	sc, err := ss.Schedule(r.Context(), slug, name)
	if err != nil {
		return err
	}
	frs, err := ss.Firings(r.Context(), slug, name, 0)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, scheduleDetail{Schedule: sc, Firings: frs})
}

func (s *Server) apiEditSchedule(w http.ResponseWriter, r *http.Request) error {
	var in scheduleInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Name != nil && *in.Name != r.PathValue("name") {
		return badRequest("a schedule's name cannot change; remove it and add it under the new name")
	}
	sc, err := s.editSchedule(r.Context(), r.PathValue("slug"), r.PathValue("name"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, sc)
}

func (s *Server) apiPauseSchedule(pause bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := s.setSchedulePaused(r.Context(), r.PathValue("slug"), r.PathValue("name"), pause)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, sc)
	}
}

func (s *Server) apiDeleteSchedule(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.schedules()
	if err != nil {
		return err
	}
	if err := ss.DeleteSchedule(r.Context(), r.PathValue("slug"), r.PathValue("name"), board.Human); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// formInput reads the add and edit forms.
func formInput(r *http.Request) scheduleInput {
	str := func(k string) *string {
		if _, ok := r.PostForm[k]; !ok {
			return nil
		}
		v := r.PostFormValue(k)
		return &v
	}
	in := scheduleInput{Name: str("name"), Kind: str("kind"), Expr: str("expr"), TimeZone: str("timezone"), Anchor: str("anchor"),
		Title: str("title"), Description: str("description"), StartState: str("startState"), PreCheck: str("preCheck"), Overlap: str("overlap")}
	if c := str("criteria"); c != nil {
		cs := strings.Split(strings.ReplaceAll(*c, "\r\n", "\n"), "\n")
		in.Criteria = &cs
	}
	if p, err := strconv.Atoi(r.PostFormValue("priority")); err == nil {
		in.Priority = &p
	}
	return in
}

// scheduleRow is one schedule on the page.
type scheduleRow struct {
	board.Schedule
	// NextHere is the next firing in the schedule's own zone.
	NextHere string
	Firings  []board.Firing
}

type schedulesView struct {
	Project   board.Project
	Schedules []scheduleRow
	States    []board.State
	Error     string
	// Failed names the schedule whose form failed ("" for the add form);
	// Form holds that form's values.
	Failed string
	Form   map[string]string
	Notice string
	// CanFire shows each schedule's Fire now button: the server can fire
	// schedules (Options.FireSchedule).
	CanFire bool
}

func (s *Server) schedulesPage(w http.ResponseWriter, r *http.Request) error {
	v := schedulesView{}
	if n := r.URL.Query().Get("done"); n != "" {
		v.Notice = n
	}
	return s.renderSchedules(w, r, http.StatusOK, v)
}

func (s *Server) renderSchedules(w http.ResponseWriter, r *http.Request, status int, v schedulesView) error {
	ss, err := s.schedules()
	if err != nil {
		return err
	}
	ctx, slug := r.Context(), r.PathValue("slug")
	if v.Project, err = s.store.Project(ctx, slug); err != nil {
		return err
	}
	list, err := ss.ScheduleList(ctx, store.ScheduleFilter{ProjectSlug: slug})
	if err != nil {
		return err
	}
	for _, sc := range list {
		row := scheduleRow{Schedule: sc}
		if !sc.NextFire.IsZero() {
			row.NextHere = inZone(sc.NextFire, sc.TimeZone)
		}
		if row.Firings, err = ss.Firings(ctx, slug, sc.Name, 5); err != nil {
			return err
		}
		v.Schedules = append(v.Schedules, row)
	}
	v.States = []board.State{board.Backlog, board.Research, board.InProgress}
	v.CanFire = s.opts.FireSchedule != nil
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	s.render(w, r, status, "schedules", pageData{Title: "Schedules · " + v.Project.Name, Project: slug, Data: v})
	return nil
}

// inZone writes t in the named zone.
func inZone(t time.Time, zone string) string {
	if loc, err := schedule.LoadZone(zone); err == nil {
		t = t.In(loc)
	}
	return t.Format("Mon 2006-01-02 15:04 MST")
}

// scheduleFormDone answers a form: back to the page, or the page again
// with the error next to the form that failed.
func (s *Server) scheduleFormDone(w http.ResponseWriter, r *http.Request, failed string, err error, notice string) error {
	if err == nil {
		http.Redirect(w, r, "/p/"+url.PathEscape(r.PathValue("slug"))+"/schedules?done="+url.QueryEscape(notice), http.StatusSeeOther)
		return nil
	}
	code := board.ErrorCode(err)
	if code != board.EINVALID && code != board.ECONFLICT && code != board.ENOTFOUND && code != board.EREFUSED {
		return err
	}
	form := map[string]string{}
	for k := range r.PostForm {
		if k != "_csrf" && k != "action" && k != "schedule" {
			form[k] = r.PostFormValue(k)
		}
	}
	return s.renderSchedules(w, r, http.StatusUnprocessableEntity, schedulesView{Error: err.Error(), Failed: failed, Form: form})
}

// scheduleForms handles the page's forms, all posted to one route (a
// schedule's name in the path would collide with ticket routes): the
// action field says which, the schedule field names the schedule.
func (s *Server) scheduleForms(w http.ResponseWriter, r *http.Request) error {
	ctx, slug, name := r.Context(), r.PathValue("slug"), r.PostFormValue("schedule")
	var err error
	notice := ""
	switch action := r.PostFormValue("action"); action {
	case "add":
		var sc board.Schedule
		sc, err = s.createSchedule(ctx, slug, formInput(r))
		name, notice = "", "Added schedule "+sc.Name
	case "edit":
		in := formInput(r)
		in.Name = nil
		_, err = s.editSchedule(ctx, slug, name, in)
		notice = "Saved schedule " + name
	case "pause", "resume":
		_, err = s.setSchedulePaused(ctx, slug, name, action == "pause")
		notice = map[string]string{"pause": "Paused", "resume": "Resumed"}[action] + " schedule " + name
	case "fire":
		notice, err = s.fireSchedule(ctx, slug, name)
	case "remove":
		var ss scheduleStore
		if ss, err = s.schedules(); err == nil {
			err = ss.DeleteSchedule(ctx, slug, name, board.Human)
		}
		notice = "Removed schedule " + name
	default:
		return badRequest("unknown schedule action " + strconv.Quote(action) + "; want add, edit, pause, resume, fire or remove")
	}
	return s.scheduleFormDone(w, r, name, err, notice)
}

// scheduleForm gives a schedule form its values: the row's schedule, or
// what the person typed when that form failed, or the add form's defaults.
// row is a scheduleRow, or nil for the add form.
func scheduleForm(row any, v schedulesView) map[string]string {
	r, ok := row.(scheduleRow)
	failed := v.Error != "" && ((ok && v.Failed == r.Name) || (!ok && v.Failed == ""))
	id := "new"
	if ok {
		id = "e-" + r.Name
	}
	if failed {
		m := map[string]string{"_id": id}
		for k, val := range v.Form {
			m[k] = val
		}
		return m
	}
	if !ok {
		return map[string]string{"_id": id, "_zoneFromBrowser": "1", "kind": "cron", "timezone": "UTC", "priority": strconv.Itoa(board.DefaultPriority),
			"startState": string(board.Backlog), "overlap": string(board.OverlapSkip)}
	}
	anchor := ""
	if !r.Anchor.IsZero() {
		if loc, err := schedule.LoadZone(r.TimeZone); err == nil {
			anchor = r.Anchor.In(loc).Format("2006-01-02 15:04")
		}
	}
	return map[string]string{"_id": id, "kind": r.Kind, "expr": r.Expr, "timezone": r.TimeZone, "anchor": anchor,
		"title": r.Title, "description": r.Description, "criteria": strings.Join(r.Criteria, "\n"),
		"startState": string(r.StartState), "priority": strconv.Itoa(r.Priority), "overlap": string(r.Overlap), "preCheck": r.PreCheck}
}
