package heartbeat_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_JobReadsEveryAttachment: a file the model is not sent (a
// binary) comes without its bytes, and with a reader of them, which the
// engines use to write every file into their run.
func TestBeat_JobReadsEveryAttachment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	tk := e.ticket("demo", "Look at the archive", board.InProgress, "looked")
	blob := []byte("PK\x03\x04 not text \x00\x01\x02")
	if _, err := e.db.AddAttachment(context.Background(), tk.Ref(), board.NewAttachment{Name: "logs.zip", Data: blob,
		AuthorType: board.Human, AuthorName: "ana"}, board.DefaultAttachmentLimits); err != nil {
		t.Fatal(err)
	}
	var got []byte
	var held bool
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		if len(job.Attachments) != 1 || job.Attachments[0].Read == nil {
			t.Errorf("attachments %+v: want one with a reader", job.Attachments)
			return heartbeat.Outcome{Status: board.RunCompleted}, nil
		}
		held = job.Attachments[0].Data != nil
		var err error
		if got, err = job.Attachments[0].Read(ctx); err != nil {
			t.Error(err)
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if held || !bytes.Equal(got, blob) {
		t.Errorf("held the bytes %v, read %q", held, got)
	}
}
