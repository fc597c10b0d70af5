package board

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every field of AgentSettings that is stored is a row of Settings, under
// its JSON name, and names and flags are unique: a field without a row
// would be lost by the stores.
func TestSettings_CoverAgentSettings(t *testing.T) {
	typ := reflect.TypeFor[AgentSettings]()
	var fields []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "unknownSettings" {
			fields = append(fields, name)
		}
	}
	var names []string
	flags := map[string]bool{}
	for _, s := range Settings {
		names = append(names, s.Name)
		if flags[s.Flag] || s.Flag == "" || s.Label == "" || s.Help == "" {
			t.Errorf("setting %s: flag %q repeated or flag, label or help missing", s.Name, s.Flag)
		}
		flags[s.Flag] = true
		_ = s.Get(AgentSettings{}) // panics without a field
	}
	slices.Sort(fields)
	slices.Sort(names)
	if !slices.Equal(fields, names) {
		t.Errorf("AgentSettings fields %v\nSettings rows     %v", fields, names)
	}
}

// nonDefault is a value of every setting other than its default.
func nonDefault() AgentSettings {
	return AgentSettings{Model: "openai/gpt-5", Verify: "go test ./...", BudgetUSD: 2.5, TicketTokens: 3, RunBudgetUSD: 0.1,
		RunTokens: 4, DailyBudgetUSD: 10, DailyTokens: 5, TakeBacklog: true, PermissionMode: ModeAsk,
		Allow: []string{"go test *"}, Ask: []string{"git push *"}, Sandbox: SandboxOff, Network: NetworkAll,
		AllowHosts: []string{"*.example.com"}, Land: LandPR, LandStyle: LandRebase, UpdateStyle: UpdateRebase,
		Engine: EngineCodex, EngineAuth: EngineAuthLogin, Thinking: ThinkingHigh, MCPServers: []string{"github"}, ScheduleTools: true, MaxAgents: 3,
		LimitMemoryMiB: 512, LimitProcesses: 64, LimitTmpMiB: 16, LimitFileSizeMiB: 32, LimitDiskGrowthMiB: 100,
		Tracker: TrackerJira, TrackerLabels: []string{"bonsai"}, TrackerAssignee: "carol", TrackerTeam: "PROJ", TrackerStates: []string{"To Do"},
		TrackerJQL: "project = PROJ", TrackerSite: "https://acme.atlassian.net", TrackerEmail: "bot@example.com"}
}

func TestSettings_RoundTrip(t *testing.T) {
	a := nonDefault()
	for _, s := range Settings {
		if s.IsDefault(a) {
			t.Errorf("nonDefault leaves %s at its default", s.Name)
		}
	}
	a.Unknown = map[string]json.RawMessage{"agentsPerMoon": json.RawMessage(`3`), "future": json.RawMessage(`{"x":[1,2]}`)}
	data, err := EncodeSettings(a)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSettings(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, a) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, a)
	}
	if empty, _ := EncodeSettings(AgentSettings{}); string(empty) != "{}" {
		t.Errorf("default settings stored as %s, want {}", empty)
	}
}

func TestDecodeSettings_Refuses(t *testing.T) {
	for _, in := range []string{`[]`, `{"budgetUsd":"x"}`, `{"limitProcesses":3}`, `{"land":"sideways"}`,
		`{"allowHosts":["http://x/"]}`, `{"takeBacklog":1}`, `{"runTokens":-1}`} {
		if _, err := DecodeSettings([]byte(in)); ErrorCode(err) != EINVALID {
			t.Errorf("DecodeSettings(%s) = %v, want EINVALID", in, err)
		}
	}
}

func TestSetting_Parse(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     any
	}{
		{"limitProcesses", " 64 ", int64(64)}, {"budgetUsd", "$2.50", 2.5}, {"takeBacklog", "true", true},
		{"permissionMode", "auto", ""}, {"land", "PR", "pr"}, {"mcpServers", "github, files,", []string{"github", "files"}},
		{"allow", "go test *\r\n\nmake *", []string{"go test *", "make *"}}, {"verify", " make ", "make"},
	} {
		s, _ := LookupSetting(c.name)
		got, err := s.Parse(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s.Parse(%q) = %#v, %v; want %#v", c.name, c.in, got, err, c.want)
		}
	}
	for _, c := range [][2]string{{"limitProcesses", "many"}, {"budgetUsd", "NaN"}, {"land", "sideways"}, {"mcpServers", "Bad"}} {
		s, _ := LookupSetting(c[0])
		if _, err := s.Parse(c[1]); err == nil {
			t.Errorf("%s.Parse(%q) accepted", c[0], c[1])
		}
	}
}

func TestProjectPatch_Settings(t *testing.T) {
	p := Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main"}
	ch, err := ProjectPatch{Settings: map[string]any{"limitProcesses": int64(64), "land": "merge"}}.Apply(&p)
	if err != nil || !slices.Equal(ch, []string{"land", "limitProcesses"}) || p.Agent.LimitProcesses != 64 || p.Agent.Land != LandMerge {
		t.Fatalf("changed %v, err %v, agent %+v", ch, err, p.Agent)
	}
	if ch, _ := (ProjectPatch{Settings: map[string]any{"limitProcesses": int64(64)}}).Apply(&p); len(ch) != 0 {
		t.Errorf("the same value changed %v", ch)
	}
	for _, bad := range []map[string]any{{"limitProcesses": int64(8)}, {"limitMemoryMib": int64(1 << 30)}, {"nope": 1}, {"land": 3}} {
		if _, err := (ProjectPatch{Settings: bad}).Apply(&p); ErrorCode(err) != EINVALID {
			t.Errorf("Apply(%v) = %v, want EINVALID", bad, err)
		}
	}
	if (ProjectPatch{Settings: map[string]any{}}).IsZero() != true || (ProjectPatch{Settings: map[string]any{"land": ""}}).IsZero() {
		t.Error("IsZero misjudges Settings")
	}
}

// IsZero knows every field of ProjectPatch: a patch setting any one of
// them is not zero.
func TestProjectPatch_IsZeroKnowsEveryField(t *testing.T) {
	v := reflect.ValueOf(&ProjectPatch{}).Elem()
	for i := range v.NumField() {
		pp := ProjectPatch{}
		f := reflect.ValueOf(&pp).Elem().Field(i)
		if f.Kind() == reflect.Map {
			f.Set(reflect.ValueOf(map[string]any{"land": ""}))
		} else {
			f.Set(reflect.New(f.Type().Elem()))
		}
		if pp.IsZero() {
			t.Errorf("a patch setting %s is zero", v.Type().Field(i).Name)
		}
	}
}

// BenchmarkDecodeSettings is what reading one project's settings costs
// the stores.
func BenchmarkDecodeSettings(b *testing.B) {
	data, _ := EncodeSettings(nonDefault())
	for b.Loop() {
		if _, err := DecodeSettings(data); err != nil {
			b.Fatal(err)
		}
	}
}

// A stored key that is AgentSettings' own JSON name for Unknown, not a
// setting, is kept as an unknown setting like any other.
func TestDecodeSettings_UnknownSettingsKey(t *testing.T) {
	a, err := DecodeSettings([]byte(`{"unknownSettings":{"x":1},"land":"pr"}`))
	if err != nil || a.Land != LandPR || string(a.Unknown["unknownSettings"]) != `{"x":1}` || len(a.Unknown) != 1 {
		t.Fatalf("decoded %+v, %v", a, err)
	}
}

// An empty stored list reads back as none (nil), whichever way it is
// decoded, as the stores have always read empty lists.
func TestDecodeSettings_EmptyListsAreNil(t *testing.T) {
	for _, in := range []string{`{"allow":[],"mcpServers":[]}`, `{"allow":[],"future":1}`} {
		a, err := DecodeSettings([]byte(in))
		if err != nil || a.Allow != nil || a.MCPServers != nil {
			t.Errorf("DecodeSettings(%s) = %#v, %v", in, a, err)
		}
	}
}

// A tracker needs what its calls need, and its site takes no
// credentials: the token is sent there.
func TestTrackerSettingsChecked(t *testing.T) {
	p := Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main", Agent: AgentSettings{Tracker: TrackerLinear}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--tracker-team") {
		t.Errorf("Linear without a team: %v", err)
	}
	p.Agent = AgentSettings{Tracker: TrackerJira, TrackerSite: "https://acme.atlassian.net", TrackerEmail: "bot@example.com"}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--tracker-jql") {
		t.Errorf("Jira without a query: %v", err)
	}
	site, _ := LookupSetting("trackerSite")
	for _, bad := range []string{"ftp://x", "https://u:p@acme.atlassian.net", "acme.atlassian.net", "https://x/?a=1"} {
		if _, err := site.Parse(bad); err == nil {
			if err = site.Check(bad); err == nil {
				t.Errorf("site %q accepted", bad)
			}
		}
	}
	tr, _ := LookupSetting("tracker")
	if v, err := tr.Parse("Forgejo"); err != nil || v != string(TrackerGitea) {
		t.Errorf("forgejo reads as %v, %v", v, err)
	}
}
