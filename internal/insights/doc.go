// Package insights turns a board's stored facts (store.StatsFacts) into
// the figures of issue 32: per group of landed tickets (by model, engine,
// project or week) how many landed, how many in one shot, what each took
// in returns, runs, tokens, dollars, questions and time; the spend per
// day against the daily budgets; the runs that failed or were stopped and
// why; the costliest tickets. It computes and never reads: Load reads the
// facts through a small interface, Build is a pure function of them, so
// both `bonsai stats` and the web Insights page show the same figures.
//
// Runs do not record the model or engine they used, so both groupings go
// by each project's current setting; Report.Notes says so, and says what
// is not recorded at all (turns).
package insights
