package cli

import (
	"github.com/spf13/pflag"

	"github.com/bonsai-run/bonsai/internal/board"
)

// budgetFlags are a project's caps beside --budget (per ticket, USD); each
// overrides the matching budget.* key of config.json, 0 keeping it.
type budgetFlags struct {
	ticketTokens, runTokens, dailyTokens int64
	runUSD, dailyUSD                     float64
}

func (b *budgetFlags) register(f *pflag.FlagSet) {
	f.Int64Var(&b.ticketTokens, "ticket-tokens", 0, "token cap per ticket (0: config.json's budget.ticketTokens)")
	f.Float64Var(&b.runUSD, "run-budget", 0, "spend cap per run in USD (0: config.json's budget.runUSD)")
	f.Int64Var(&b.runTokens, "run-tokens", 0, "token cap per run (0: config.json's budget.runTokens)")
	f.Float64Var(&b.dailyUSD, "daily-budget", 0, "spend cap per day for the project in USD (0: config.json's budget.projectDailyUSD)")
	f.Int64Var(&b.dailyTokens, "daily-tokens", 0, "token cap per day for the project (0: config.json's budget.projectDailyTokens)")
}

// apply sets the caps of a new project.
func (b *budgetFlags) apply(s *board.AgentSettings) {
	s.TicketTokens, s.RunBudgetUSD, s.RunTokens, s.DailyBudgetUSD, s.DailyTokens =
		b.ticketTokens, b.runUSD, b.runTokens, b.dailyUSD, b.dailyTokens
}

// update sets in u the caps given on the command line.
func (b *budgetFlags) update(f *pflag.FlagSet, u *board.ProjectPatch) {
	if f.Changed("ticket-tokens") {
		u.TicketTokens = &b.ticketTokens
	}
	if f.Changed("run-budget") {
		u.RunBudgetUSD = &b.runUSD
	}
	if f.Changed("run-tokens") {
		u.RunTokens = &b.runTokens
	}
	if f.Changed("daily-budget") {
		u.DailyBudgetUSD = &b.dailyUSD
	}
	if f.Changed("daily-tokens") {
		u.DailyTokens = &b.dailyTokens
	}
}
