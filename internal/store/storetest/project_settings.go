package storetest

import (
	"encoding/json"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// testProjectSettings: settings set by name through ProjectPatch.Settings
// (as the CLI, the API and the web form set them) read back, and settings
// the store does not know (written by a newer Bonsai) are kept, unchanged,
// through every update.
func testProjectSettings(t *testing.T, s store.Store, _ *clock) {
	ctx := t.Context()
	in := newProject("demo")
	in.Agent.Unknown = map[string]json.RawMessage{"agentsPerMoon": json.RawMessage(`3`), "future": json.RawMessage(`{"a":[1,"b"]}`)}
	p, err := s.CreateProject(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	got := mustProjectGet(t, s, "demo")
	same(t, "unknown settings read back", got.Agent.Unknown, in.Agent.Unknown)

	before := lastEventID(t, s)
	up, err := s.UpdateProject(ctx, "demo", board.ProjectPatch{Settings: map[string]any{
		"limitProcesses": int64(64), "limitTmpMib": int64(16), "land": "merge", "allow": []string{"go test *"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := p.Agent
	want.LimitProcesses, want.LimitTmpMiB, want.Land, want.Allow = 64, 16, board.LandMerge, []string{"go test *"}
	same(t, "settings after the update", up.Agent, want)
	same(t, "settings read back", mustProjectGet(t, s, "demo").Agent, want)
	wantEvents(t, s, before, board.EventProjectUpdated)

	// Out of the table's range: refused, nothing changes.
	_, err = s.UpdateProject(ctx, "demo", board.ProjectPatch{Settings: map[string]any{"limitProcesses": int64(3)}})
	wantCode(t, err, board.EINVALID, "processes")
	same(t, "settings after a refused update", mustProjectGet(t, s, "demo").Agent, want)
}
