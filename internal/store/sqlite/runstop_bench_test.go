package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// BenchmarkRunControl measures the poll every running run makes twice a
// second (docs/heartbeat.md, "Run control"), on a board of 2,000 tickets
// with 10,000 finished runs and 20,000 comments:
//
//	go test -run '^$' -bench RunControl ./internal/store/sqlite/
func BenchmarkRunControl(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bonsai.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "demo", Repo: b.TempDir(), DefaultBranch: "main", Active: true}); err != nil {
		b.Fatal(err)
	}
	var last board.Run
	for i := range 2000 {
		t, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: fmt.Sprintf("t%d", i), State: board.InProgress, Priority: board.DefaultPriority}, board.Human)
		if err != nil {
			b.Fatal(err)
		}
		for j := range 10 {
			if j%2 == 0 {
				if _, err := db.AddComment(ctx, t.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "ana", Kind: board.KindNote, Content: "note"}); err != nil {
					b.Fatal(err)
				}
				continue
			}
			r, err := db.StartRun(ctx, board.Run{TicketID: t.ID, Task: board.TaskImplement})
			if err != nil {
				b.Fatal(err)
			}
			if i < 1999 || j < 9 {
				if _, err := db.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted}); err != nil {
					b.Fatal(err)
				}
			}
			last = r
		}
	}
	b.ResetTimer()
	for b.Loop() {
		c, err := db.RunControl(ctx, last.ID)
		if err != nil || c.Status != board.RunRunning {
			b.Fatalf("RunControl = %+v, %v", c, err)
		}
	}
}
