// Package insightsbench measures issue 32's insights on a big board: 10
// projects, 2,000 tickets and 20,000 runs, written by the store
// benchmark's seed (bench/store) and filled in by Fill with what the
// insights read (runs that failed or were stopped, returns, questions,
// landings, moves to DONE, models, engines and budgets). The timing is a
// test that runs only when asked:
//
//	BONSAI_BENCH_INSIGHTS=1 go test -run TestInsightsBench -v ./bench/insights/
//
// Targets: `bonsai stats --json` under 200 ms and the Insights page under
// 300 ms, on SQLite and on Postgres.
package insightsbench
