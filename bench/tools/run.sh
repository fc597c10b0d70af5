#!/usr/bin/env bash
# Compares grep and find (Go and rg backends) with rg run directly over a
# generated tree of 50,000 files / 500 MB (docs/design.md §6, issue 3 targets:
# rg backend <= 1.2x rg, Go backend <= 3x rg).
#
# Usage: bench/tools/run.sh [files] [kb-per-file]
# The tree is generated once under ${BONSAI_BENCH_DIR:-/tmp/bonsai-bench}
# and reused; the first iteration warms the page cache.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=local
export BONSAI_BENCH_FILES="${1:-50000}"
export BONSAI_BENCH_FILE_KB="${2:-10}"
export BONSAI_BENCH_DIR="${BONSAI_BENCH_DIR:-/tmp/bonsai-bench}"
mkdir -p "$BONSAI_BENCH_DIR"
command -v rg >/dev/null || echo "rg is not on PATH: only the Go backend runs" >&2
go test ./internal/tools/ -run '^$' -bench 'Grep|Find' -benchtime "${BENCHTIME:-5x}" -count "${COUNT:-1}" -timeout 60m
