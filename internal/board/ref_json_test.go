package board

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A landing, a lease and a review name their ticket as every other JSON
// output does: "demo#3", not Go's {"Project":…,"Number":…}.
func TestRefJSON_IsSlugHashNumber(t *testing.T) {
	l := Landing{Ref: Ref{Project: "demo", Number: 3}, Mode: LandMerge, Branch: "bonsai/demo/3-x", UpdatedAt: time.Unix(0, 0).UTC()}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"ticket":"demo#3"`) || strings.Contains(string(b), "Project") {
		t.Fatalf("landing JSON = %s, want \"ticket\":\"demo#3\"", b)
	}
	var back Landing
	if err := json.Unmarshal(b, &back); err != nil || back.Ref != l.Ref {
		t.Fatalf("read back %+v, %v", back.Ref, err)
	}
	for in, want := range map[string]Ref{
		`{"ref":"web#12"}`:                     {Project: "web", Number: 12},
		`{"ref":{"Project":"old","Number":4}}`: {Project: "old", Number: 4},
		`{"ref":""}`:                           {},
		`{"ref":null}`:                         {},
	} {
		var ls Lease
		if err := json.Unmarshal([]byte(in), &ls); err != nil || ls.Ref != want {
			t.Errorf("%s read as %+v, %v; want %+v", in, ls.Ref, err, want)
		}
	}
	var ls Lease
	if err := json.Unmarshal([]byte(`{"ref":"no number"}`), &ls); err == nil {
		t.Error("a reference without a number was accepted")
	}
	if b, _ := json.Marshal(Lease{}); !strings.Contains(string(b), `"ref":""`) {
		t.Errorf("the zero Ref is %s, want \"\"", b)
	}
}
