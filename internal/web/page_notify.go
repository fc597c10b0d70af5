package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Notifier checks, tests and describes notification channels for the
// notifications page; cli wires internal/notify in.
type Notifier interface {
	// Check says what is wrong with a channel's settings.
	Check(c board.Channel) error
	// Test sends a test notification on c and says why it failed.
	Test(ctx context.Context, c board.Channel) error
	// Target says where c sends, without its secrets.
	Target(c board.Channel) string
}

// notifyStore is what the notifications page needs of the store.
type notifyStore interface {
	AddChannel(ctx context.Context, c board.Channel) (board.Channel, error)
	Channels(ctx context.Context) ([]board.Channel, error)
	RemoveChannel(ctx context.Context, name string) error
	NotificationList(ctx context.Context, f store.NotificationFilter) ([]board.Notification, error)
}

var _ notifyStore = store.Store(nil)

type channelRow struct {
	board.Channel
	Target          string
	Pending, Failed int
}

type notifyView struct {
	Channels      []channelRow
	Notifications []board.Notification
	Projects      []board.Project
	Kinds         []board.NotifyKind
	ChannelKinds  []board.ChannelKind
	Form          map[string]string // the add form's values after an error (never the secret)
	Error         string
	Notice        string
	Enabled       bool // a Notifier is wired: channels can be added and tested
}

func (s *Server) notifyParts() (notifyStore, error) {
	ns, ok := s.store.(notifyStore)
	if !ok {
		return nil, errors.New("this store keeps no notification channels")
	}
	return ns, nil
}

func (s *Server) notificationsPage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	v := notifyView{}
	if what, ok := notices[q.Get("done")]; ok {
		v.Notice = what + " " + q.Get("channel")
	}
	return s.renderNotifications(w, r, http.StatusOK, v)
}

func (s *Server) renderNotifications(w http.ResponseWriter, r *http.Request, status int, v notifyView) error {
	ns, err := s.notifyParts()
	if err != nil {
		return err
	}
	ctx := r.Context()
	cs, err := ns.Channels(ctx)
	if err != nil {
		return err
	}
	if v.Notifications, err = ns.NotificationList(ctx, store.NotificationFilter{Limit: 30}); err != nil {
		return err
	}
	pending, err := ns.NotificationList(ctx, store.NotificationFilter{Status: board.NotifyPending, Limit: 1000})
	if err != nil {
		return err
	}
	failed, err := ns.NotificationList(ctx, store.NotificationFilter{Status: board.NotifyFailed, Limit: 1000})
	if err != nil {
		return err
	}
	for _, c := range cs {
		row := channelRow{Channel: c, Target: "…"}
		if s.opts.Notify != nil {
			row.Target = s.opts.Notify.Target(c)
		}
		row.Settings = nil // secrets never reach the template
		for _, n := range pending {
			if n.ChannelID == c.ID {
				row.Pending++
			}
		}
		for _, n := range failed {
			if n.ChannelID == c.ID {
				row.Failed++
			}
		}
		v.Channels = append(v.Channels, row)
	}
	if v.Projects, err = s.store.Projects(ctx, store.ProjectFilter{}); err != nil {
		return err
	}
	v.Kinds, v.ChannelKinds, v.Enabled = board.NotifyKinds(), board.ChannelKinds(), s.opts.Notify != nil
	s.render(w, r, status, "notifications", pageData{Title: "Notifications", Data: v})
	return nil
}

// addChannel adds a channel from the form, after a test message unless
// the form skips it. The secret field is write-only: it is never shown
// again, not even after an error.
func (s *Server) addChannel(w http.ResponseWriter, r *http.Request) error {
	ns, err := s.notifyParts()
	if err != nil {
		return err
	}
	f := r.PostForm
	c := board.Channel{Name: strings.TrimSpace(f.Get("name")), Kind: board.ChannelKind(f.Get("kind")),
		ProjectSlug: f.Get("project"), Settings: map[string]string{}}
	for _, k := range f["events"] {
		c.Kinds = append(c.Kinds, board.NotifyKind(k))
	}
	form := map[string]string{}
	for _, k := range []string{"url", "host", "from", "to", "username"} {
		if v := strings.TrimSpace(f.Get(k)); v != "" {
			c.Settings[k] = v
			form[k] = v
		}
	}
	form["name"], form["kind"], form["project"] = c.Name, string(c.Kind), c.ProjectSlug
	if secret := strings.TrimSpace(f.Get("secret")); secret != "" {
		switch c.Kind {
		case board.ChannelWebhook:
			c.Settings["secret"] = secret
		case board.ChannelNtfy:
			c.Settings["token"] = secret
		case board.ChannelEmail:
			c.Settings["password"] = secret
		}
	}
	if c.Kind == board.ChannelSlack || c.Kind == board.ChannelDiscord {
		delete(form, "url") // the URL is the secret
	}
	fail := func(err error) error {
		return s.renderNotifications(w, r, http.StatusBadRequest, notifyView{Form: form, Error: err.Error()})
	}
	if s.opts.Notify == nil {
		return fail(errors.New("this server cannot check channels; use bonsai notify add"))
	}
	if err := s.opts.Notify.Check(c); err != nil {
		return fail(err)
	}
	if f.Get("skip-test") == "" {
		if err := s.opts.Notify.Test(r.Context(), c); err != nil {
			return fail(errors.New("not added: the test notification failed: " + err.Error() + ". Fix the settings, or tick “add without a test”."))
		}
	}
	if _, err := ns.AddChannel(r.Context(), c); err != nil {
		return fail(err)
	}
	http.Redirect(w, r, noticeURL("added", c.Name), http.StatusSeeOther)
	return nil
}

func (s *Server) channelByName(ctx context.Context, name string) (board.Channel, error) {
	ns, err := s.notifyParts()
	if err != nil {
		return board.Channel{}, err
	}
	cs, err := ns.Channels(ctx)
	if err != nil {
		return board.Channel{}, err
	}
	for _, c := range cs {
		if c.Name == name {
			return c, nil
		}
	}
	return board.Channel{}, board.Errorf(board.ENOTFOUND, "no channel %q", name)
}

func (s *Server) testChannel(w http.ResponseWriter, r *http.Request) error {
	c, err := s.channelByName(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	if s.opts.Notify == nil {
		return s.renderNotifications(w, r, http.StatusBadRequest, notifyView{Error: "this server cannot send test notifications; use bonsai notify test"})
	}
	if err := s.opts.Notify.Test(r.Context(), c); err != nil {
		return s.renderNotifications(w, r, http.StatusBadGateway, notifyView{Error: "channel " + c.Name + ": " + err.Error()})
	}
	http.Redirect(w, r, noticeURL("tested", c.Name), http.StatusSeeOther)
	return nil
}

func (s *Server) removeChannel(w http.ResponseWriter, r *http.Request) error {
	ns, err := s.notifyParts()
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	if err := ns.RemoveChannel(r.Context(), name); err != nil {
		return err
	}
	http.Redirect(w, r, noticeURL("removed", name), http.StatusSeeOther)
	return nil
}

// notices are the page's fixed notices after a change, by the done
// parameter; only the channel's name comes from the URL.
var notices = map[string]string{"added": "Added channel", "tested": "Sent a test notification to", "removed": "Removed channel"}

func noticeURL(done, channel string) string {
	return "/settings/notifications?" + url.Values{"done": {done}, "channel": {channel}}.Encode()
}
