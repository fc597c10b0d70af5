package board

import (
	"strings"
	"testing"
)

func TestValidateSlug(t *testing.T) {
	tests := []struct{ in, err string }{
		{"demo", ""},
		{"a-1", ""},
		{strings.Repeat("a", 40), ""},
		{"", "project slug is empty"},
		{strings.Repeat("a", 41), "is 41 characters; the limit is 40"},
		{"Demo", `has 'D'`},
		{"de mo", `has ' '`},
		{"dé", `has 'é'`},
	}
	for _, tt := range tests {
		err := ValidateSlug(tt.in)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ValidateSlug(%q) = %v, want %q", tt.in, err, tt.err)
		}
		if err != nil && ErrorCode(err) != EINVALID {
			t.Errorf("ValidateSlug(%q) code %s, want invalid", tt.in, ErrorCode(err))
		}
	}
}

// TestValidateNewSlug checks that a new project's slug may not start with
// "-", while such a slug, stored before the rule, stays valid.
func TestValidateNewSlug(t *testing.T) {
	for _, s := range []string{"-x", "-", "--help"} {
		err := ValidateNewSlug(s)
		if err == nil || ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), "starts with -") {
			t.Errorf("ValidateNewSlug(%q) = %v, want an invalid error saying it starts with -", s, err)
		}
		if err := ValidateSlug(s); err != nil {
			t.Errorf("ValidateSlug(%q) = %v; a stored slug must stay valid", s, err)
		}
	}
	for _, s := range []string{"demo", "1-a", "a-"} {
		if err := ValidateNewSlug(s); err != nil {
			t.Errorf("ValidateNewSlug(%q) = %v, want nil", s, err)
		}
	}
	if err := ValidateNewSlug("Bad"); err == nil || !strings.Contains(err.Error(), "has 'B'") {
		t.Errorf("ValidateNewSlug(Bad) = %v, want ValidateSlug's error", err)
	}
}

func TestTicket_Validate(t *testing.T) {
	ok := Ticket{Title: "Fix it", Priority: 2, State: Backlog}
	tests := []struct {
		name string
		mod  func(*Ticket)
		err  string
	}{
		{"valid", func(*Ticket) {}, ""},
		{"blank title", func(t *Ticket) { t.Title = "  " }, "title is empty"},
		{"long title", func(t *Ticket) { t.Title = strings.Repeat("x", 201) }, "title is 201 characters; the limit is 200"},
		{"200 runes ok", func(t *Ticket) { t.Title = strings.Repeat("é", 200) }, ""},
		{"two lines", func(t *Ticket) { t.Title = "a\nb" }, "title must be one line"},
		{"bad utf8", func(t *Ticket) { t.Title = "\xff" }, "not valid UTF-8"},
		{"priority low", func(t *Ticket) { t.Priority = -1 }, "priority -1 is out of range"},
		{"priority high", func(t *Ticket) { t.Priority = 5 }, "priority 5 is out of range"},
		{"empty criterion", func(t *Ticket) { t.Criteria = []string{"ok", ""} }, "acceptance criterion 2 is empty"},
		{"big description", func(t *Ticket) { t.Description = strings.Repeat("x", MaxDescription+1) }, "description is"},
		{"bad state", func(t *Ticket) { t.State = "NOPE" }, `unknown state "NOPE"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := ok
			tt.mod(&tk)
			err := tk.Validate()
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("Validate = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestCheckNew(t *testing.T) {
	for _, st := range []State{Backlog, Research, InProgress} {
		if err := CheckNew(Ticket{Title: "x", State: st}); err != nil {
			t.Errorf("new ticket in %s: %v", st, err)
		}
	}
	for _, st := range []State{Verification, Done} {
		if err := CheckNew(Ticket{Title: "x", State: st}); err == nil {
			t.Errorf("new ticket in %s accepted", st)
		}
	}
	if err := CheckNew(Ticket{Title: "x", State: Backlog, SubState: SubBlocked}); err == nil {
		t.Error("new blocked ticket accepted")
	}
}

func TestParseRef(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"demo#12", "demo#12", ""},
		{"demo", "", "must look like <project>#<number>"},
		{"demo#0", "", "positive whole number"},
		{"demo#x", "", "positive whole number"},
		{"De#1", "", "has 'D'"},
	}
	for _, tt := range tests {
		r, err := ParseRef(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseRef(%q) = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || r.String() != tt.want {
			t.Errorf("ParseRef(%q) = %v, %v", tt.in, r, err)
		}
	}
}

func TestParseState(t *testing.T) {
	for in, want := range map[string]State{"backlog": Backlog, "in-progress": InProgress, " IN_PROGRESS ": InProgress, "in progress": InProgress} {
		if got, err := ParseState(in); err != nil || got != want {
			t.Errorf("ParseState(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseState("WIP"); err == nil || ErrorCode(err) != EINVALID {
		t.Errorf("ParseState(WIP) = %v", err)
	}
}

func TestValidateBranchAndModel(t *testing.T) {
	for _, b := range []string{"main", "feature/x", "release-1.2"} {
		if err := ValidateBranch(b); err != nil {
			t.Errorf("ValidateBranch(%q): %v", b, err)
		}
	}
	for _, b := range []string{"", "-x", "a..b", "a b", "x.lock", "a~1", "/x", "x/"} {
		if ValidateBranch(b) == nil {
			t.Errorf("ValidateBranch(%q) accepted", b)
		}
	}
	for _, m := range []string{"", "anthropic/claude-sonnet-4-5", "ollama/qwen3:8b"} {
		if err := ValidateModelID(m); err != nil {
			t.Errorf("ValidateModelID(%q): %v", m, err)
		}
	}
	for _, m := range []string{"claude", "/x", "x/", "a b/c"} {
		if ValidateModelID(m) == nil {
			t.Errorf("ValidateModelID(%q) accepted", m)
		}
	}
}

func TestParsePermissionMode(t *testing.T) {
	for in, want := range map[string]PermissionMode{"": ModeAuto, "auto": ModeAuto, " Plan ": ModePlan, "ask": ModeAsk, "READ-ONLY": ModeReadOnly} {
		if got, err := ParsePermissionMode(in); err != nil || got != want {
			t.Errorf("ParsePermissionMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParsePermissionMode("yolo"); err == nil || !strings.Contains(err.Error(), `permission mode "yolo"; use auto (agents implement their plans), plan`) {
		t.Errorf("ParsePermissionMode(yolo) = %v", err)
	}
	p := Project{Slug: "demo", Name: "d", Repo: "/r", DefaultBranch: "main", Agent: AgentSettings{PermissionMode: "yolo"}}
	if err := p.Validate(); ErrorCode(err) != EINVALID {
		t.Errorf("Validate with a bad mode = %v, want EINVALID", err)
	}
	if ModeAuto.String() != "auto" || ModePlan.String() != "plan" {
		t.Errorf("String: %q, %q", ModeAuto, ModePlan)
	}
}
