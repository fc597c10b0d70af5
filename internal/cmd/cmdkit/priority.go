package cmdkit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bonsai-run/bonsai/internal/board"
)

// AddPriorityFlag registers --priority on f, setting *p; its default is
// *p as it is now.
func AddPriorityFlag(f *pflag.FlagSet, p *int) {
	f.Var(priorityValue{p}, "priority", "priority: 0 urgent, 1 high, 2 medium, 3 low, 4 none (number or name)")
}

// priorityValue is the --priority flag: a number 0-4 or its name (urgent,
// high, medium, low, none), as tables show it. Numbers out of range are
// left for board.ValidatePriority to refuse.
type priorityValue struct{ p *int }

func (v priorityValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v priorityValue) Set(s string) error {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		*v.p = n
		return nil
	}
	for p := board.PriorityUrgent; p <= board.PriorityNone; p++ {
		if strings.EqualFold(strings.TrimSpace(s), board.PriorityName(p)) {
			*v.p = p
			return nil
		}
	}
	return fmt.Errorf("use 0 (urgent), 1 (high), 2 (medium), 3 (low) or 4 (none), as a number or a name")
}

func (v priorityValue) Type() string { return "0-4|name" }
