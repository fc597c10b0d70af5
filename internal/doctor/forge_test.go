package doctor_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/doctor"
)

func TestForgeToken(t *testing.T) {
	where := "gitea acme/widget on git.lan"
	need := "write:repository and read:issue"
	cases := []struct {
		probe  doctor.ForgeProbe
		status doctor.Status
		detail string
		fix    string
	}{
		{doctor.ForgeProbe{Requests: 3}, doctor.OK, "has what pull requests need; 3 request(s), no change", ""},
		{doctor.ForgeProbe{Scopes: []string{"repo"}, Requests: 1}, doctor.OK, "need (repo); 1 request(s)", ""},
		{doctor.ForgeProbe{Missing: []string{"read:issue"}, Requests: 3}, doctor.Fail, "the token lacks read:issue", "give the token write:repository and read:issue"},
		{doctor.ForgeProbe{Unchecked: "GitHub does not list a fine-grained token's permissions", Requests: 1}, doctor.Warn, "accepted; GitHub does not list", "make sure the token has"},
		{doctor.ForgeProbe{Err: errors.New("gitea: read the repository: 401 Unauthorized"), ErrFix: "store a new one"}, doctor.Fail, "401 Unauthorized", "store a new one"},
		{doctor.ForgeProbe{Err: errors.New("gitea: read the repository: 502 Bad Gateway"), ErrFix: "the next beat tries again", Transient: true}, doctor.Warn, "502", "the next beat"},
	}
	for _, tc := range cases {
		p := tc.probe
		p.Name, p.Where, p.Need = "forge demo", where, need
		c := doctor.ForgeToken(p)
		if c.Name != "forge demo" || c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) || !strings.HasPrefix(c.Detail, where) || !strings.Contains(c.Fix, tc.fix) {
			t.Errorf("ForgeToken(%+v) = %+v; want %s, detail with %q, fix with %q", tc.probe, c, tc.status, tc.detail, tc.fix)
		}
	}
}
