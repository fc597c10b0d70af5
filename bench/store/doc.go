// Package storebench benchmarks the SQLite store on a large, realistic
// board, and writes such boards quickly (Seed) for this and other
// benchmarks, such as timing `bonsai status` as a whole process.
//
//	bench/store/run.sh                       # the benchmarks, with targets
//	go test -run '^$' -bench . ./bench/store # the same, by hand
package storebench
