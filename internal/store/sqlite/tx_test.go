package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestWrite_WaitsForTheProcessWriteLock checks that a writer queues behind
// another writer of the same process, and gives up when its context ends.
func TestWrite_WaitsForTheProcessWriteLock(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	db.writeLock <- struct{}{} // another writer is inside

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CreateProject while the lock is held = %v, want the context's deadline", err)
	}

	done := make(chan error)
	go func() {
		_, err := db.CreateProject(context.Background(), board.Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main"})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("CreateProject returned %v while the lock was held", err)
	case <-time.After(20 * time.Millisecond):
	}
	<-db.writeLock // the other writer leaves
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
