package board

import (
	"strings"
	"testing"
)

func TestPermissionMode_Meaning(t *testing.T) {
	tests := []struct {
		m        PermissionMode
		plans    bool
		commands string
	}{
		{ModeAuto, false, "auto"}, {ModePlan, true, "auto"}, {ModeAsk, false, "ask"}, {ModeReadOnly, true, "read-only"},
	}
	for _, tt := range tests {
		if got := tt.m.PersonApprovesPlans(); got != tt.plans {
			t.Errorf("%s.PersonApprovesPlans() = %v", tt.m, got)
		}
		if got := tt.m.Commands(); got != tt.commands {
			t.Errorf("%s.Commands() = %q, want %q", tt.m, got, tt.commands)
		}
		back, err := ParsePermissionMode(tt.m.String())
		if err != nil || back != tt.m {
			t.Errorf("ParsePermissionMode(%q) = %q, %v", tt.m.String(), back, err)
		}
	}
}

func TestParseSandboxAndNetwork(t *testing.T) {
	for in, want := range map[string]SandboxMode{"": SandboxRequired, "required": SandboxRequired, " On": SandboxRequired, "OFF": SandboxOff} {
		if got, err := ParseSandboxMode(in); err != nil || got != want {
			t.Errorf("ParseSandboxMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseSandboxMode("maybe"); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), "use required") {
		t.Errorf("ParseSandboxMode(maybe) = %v", err)
	}
	for in, want := range map[string]NetworkMode{"": NetworkProxy, "proxy": NetworkProxy, "None": NetworkNone, "all": NetworkAll} {
		if got, err := ParseNetworkMode(in); err != nil || got != want {
			t.Errorf("ParseNetworkMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseNetworkMode("some"); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), "use proxy") {
		t.Errorf("ParseNetworkMode(some) = %v", err)
	}
	if SandboxRequired.String() != "required" || NetworkProxy.String() != "proxy" || NetworkAll.String() != "all" {
		t.Error("String of the defaults")
	}
}

func TestValidate_SafetySettings(t *testing.T) {
	ok := []AgentSettings{
		{},
		{PermissionMode: ModeAsk, Allow: []string{"go test *", "make"}, Ask: []string{"git push *"}},
		{Sandbox: SandboxOff, Network: NetworkAll},
		{Network: NetworkNone, AllowHosts: []string{"example.com", "*.example.org", "10.0.0.1:8080", "[::1]:3128", "[fe80::1]", "a-b.c:443"}},
	}
	for _, a := range ok {
		p := Project{Slug: "demo", Name: "d", Repo: "/r", DefaultBranch: "main", Agent: a}
		if err := p.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", a, err)
		}
	}
	long := strings.Repeat("x", maxPatternLength+1)
	bad := map[string]AgentSettings{
		"mode":           {PermissionMode: "yolo"},
		"sandbox":        {Sandbox: "maybe"},
		"sandbox alias":  {Sandbox: "required"}, // stored as "", never as its name
		"network":        {Network: "some"},
		"empty allow":    {Allow: []string{" "}},
		"newline ask":    {Ask: []string{"git push\nrm -rf /"}},
		"long allow":     {Allow: []string{long}},
		"too many":       {Allow: make([]string, maxPatterns+1)},
		"host space":     {AllowHosts: []string{"exa mple.com"}},
		"host scheme":    {AllowHosts: []string{"https://example.com"}},
		"host port":      {AllowHosts: []string{"example.com:0"}},
		"host port text": {AllowHosts: []string{"example.com:http"}},
		"host empty":     {AllowHosts: []string{""}},
		"host star":      {AllowHosts: []string{"*"}},
		"host mid star":  {AllowHosts: []string{"a.*.com"}},
		"host tld star":  {AllowHosts: []string{"*.com"}},
		"host hyphen":    {AllowHosts: []string{"-a.com"}},
		"host dots":      {AllowHosts: []string{"a..com"}},
		"host v6 bare":   {AllowHosts: []string{"[example.com]"}},
		"host v6 open":   {AllowHosts: []string{"[::1"}},
		"host v6 tail":   {AllowHosts: []string{"[::1]x"}},
	}
	for name, a := range bad {
		p := Project{Slug: "demo", Name: "d", Repo: "/r", DefaultBranch: "main", Agent: a}
		if err := p.Validate(); ErrorCode(err) != EINVALID {
			t.Errorf("%s: Validate = %v, want EINVALID", name, err)
		}
	}
}

func TestProjectPatch_Lists(t *testing.T) {
	p := Project{Slug: "demo", Name: "d", Repo: "/r", DefaultBranch: "main"}
	allow := []string{"go test *"}
	ch, err := ProjectPatch{Allow: &allow, Network: ptr(NetworkNone)}.Apply(&p)
	if err != nil || strings.Join(ch, ",") != "allow,network" {
		t.Fatalf("Apply = %v, %v", ch, err)
	}
	allow[0] = "changed after"
	if p.Agent.Allow[0] != "go test *" {
		t.Error("the project shares the patch's slice")
	}
	if ch, _ := (ProjectPatch{Allow: &[]string{"go test *"}}).Apply(&p); len(ch) != 0 {
		t.Errorf("an equal list changed %v", ch)
	}
	empty := []string{}
	if ch, _ := (ProjectPatch{Allow: &empty}).Apply(&p); len(ch) != 1 || p.Agent.Allow != nil {
		t.Errorf("clearing: %v, %#v", ch, p.Agent.Allow)
	}
}
