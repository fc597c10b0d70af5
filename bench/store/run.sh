#!/usr/bin/env bash
# Benchmarks the SQLite store on a board of 100 projects × 1,000 tickets
# (issue 2 targets: Pick over all projects < 1 ms, CreateTicket < 2 ms).
#
# Usage: bench/store/run.sh [go test -bench regexp]
# The board is seeded once into ${BONSAI_BENCH_DB:-/tmp/bonsai-bench-store.db}
# (about ten seconds) and reused; delete the file to seed a fresh one.
# Besides ns/op, each benchmark reports cpu-ns/op, the CPU time the process
# spent per op, which a busy machine does not inflate.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=local
export BONSAI_BENCH_DB="${BONSAI_BENCH_DB:-/tmp/bonsai-bench-store.db}"
go test ./bench/store/ -run '^$' -bench "${1:-.}" -benchtime "${BENCHTIME:-2s}" -count "${COUNT:-1}" -timeout 30m
