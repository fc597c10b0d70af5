//go:build linux

package heartbeat_test

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_ExpiredLeaseReapsItsRun: a process that a dead worker of this
// host left running, outside its run's process group, is killed when the
// next beat ends the run's lease, which has run out. (On a shared board
// the run waits for its lease rather than for this machine's next beat.)
func TestBeat_ExpiredLeaseReapsItsRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.WorkerID, e.opts.Leases = "here:1", e.db
	ctx := context.Background()
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.Research)
	if _, err := e.db.AcquireLease(ctx, tk.Ref(), "here:2", time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	dead, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch, WorkerID: "here:2"})
	if err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sleep", "60")
	left.Env = append(os.Environ(), heartbeat.RunMark+"="+dead.ID)
	left.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { left.Process.Kill() })
	exited := make(chan struct{})
	go func() { left.Wait(); close(exited) }()
	time.Sleep(5 * time.Millisecond) // past the dead worker's lease

	e.beat()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the process the dead run left still runs after the beat ended its lease")
	}
	if rs := e.runs(tk.Ref()); len(rs) != 2 || rs[1].ID != dead.ID || rs[1].Error != board.LeaseInterruptedError {
		t.Errorf("runs = %+v; want the dead run interrupted by its lease, then a new one", rs)
	}
}
