package postgres_test

import (
	"fmt"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// BenchmarkRecordBeat is what a beat on a shared board adds to record its
// worker, on a board with 50 workers.
func BenchmarkRecordBeat(b *testing.B) {
	db, err := postgres.Open(b.Context(), pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	beat := func(i int) board.WorkerBeat {
		host := fmt.Sprintf("m%02d", i)
		return board.WorkerBeat{ID: host + ":1", Host: host, Dir: "/d", PID: 1, Version: "v1", Kind: board.WorkerLoop}
	}
	for i := range 50 {
		if _, err := db.RecordBeat(b.Context(), beat(i)); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; b.Loop(); i++ {
		if _, err := db.RecordBeat(b.Context(), beat(i%50)); err != nil {
			b.Fatal(err)
		}
	}
}
