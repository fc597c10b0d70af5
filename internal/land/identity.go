package land

import (
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// complete reports whether p names someone git can record: a name and an
// email address.
func (p Person) complete() bool {
	return strings.TrimSpace(p.Name) != "" && strings.TrimSpace(p.Email) != ""
}

// noIdentity is the refusal of a landing that would make a commit in the
// approving person's name when they have none: git would record it as
// "name <>" or refuse halfway. Nothing was changed.
func noIdentity(p board.Project, t board.Ticket, person Person) *Failure {
	missing := "no name or email address"
	switch {
	case strings.TrimSpace(person.Name) != "":
		missing = "no email address"
	case strings.TrimSpace(person.Email) != "":
		missing = "no name"
	}
	where := "git config --global"
	if board.IsLocalRepo(p.Repo) {
		where = "git -C " + shellWord(strings.TrimPrefix(p.Repo, "file://")) + " config"
	}
	return &Failure{
		Cause: fmt.Sprintf("landing %s makes a commit in the approving person's name, and git has %s for them in %s", t.Ref(), missing, workspace.Redact(p.Repo)),
		Fix: fmt.Sprintf("give git your identity (`%s user.name \"Your Name\"` and `%s user.email you@example.com`) or Bonsai (`bonsai config set git.personName \"Your Name\"` and `bonsai config set git.personEmail you@example.com`), then approve again",
			where, where)}
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
