package sqlite

import (
	"context"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	sqlite "modernc.org/sqlite"
)

// keepWAL is a connector whose connections keep the -wal and -shm files
// when the last connection to the database closes (SQLite's
// SQLITE_FCNTL_PERSIST_WAL). The close still checkpoints the WAL into the
// database file and, with the DSN's journal_size_limit, truncates it to
// zero bytes, so bonsai.db alone stays a whole copy of the board; what it
// saves is the next process creating both files again and this one
// deleting them: a short CLI command such as an idle heartbeat, which
// opens and closes the database every few seconds, pays for both (about
// 0.3 ms of a 9 ms beat).
type keepWAL struct{ driver.Connector }

// Connect opens a connection and sets its persistent-WAL flag.
func (k keepWAL) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	fc, ok := c.(sqlite.FileControl)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("the SQLite driver's connection (%T) has no file control", c)
	}
	if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
		c.Close()
		return nil, fmt.Errorf("keep the WAL file: %w", err)
	}
	return c, nil
}

// Settled reports whether closing the database would leave its files as
// they are: its WAL is empty, so even the last connection to close has
// nothing to checkpoint, and the WAL is kept (keepWAL). A process about to
// exit may then skip Close: the exit frees the memory and releases the
// files and their locks, sooner than closing does (an idle heartbeat spent
// 0.2 ms of its 9 ms closing). A process that wrote has frames in the WAL
// and must close, so that its work reaches bonsai.db.
func (db *DB) Settled() bool {
	fi, err := os.Stat(db.path + "-wal")
	return err == nil && fi.Size() == 0
}

// StampSettle is how old the database files must be for Stamp to vouch
// for them. A file system records modification times in ticks (ext4 and
// APFS: nanoseconds, but the kernel's clock may tick every few
// milliseconds; HFS+ one second; FAT two), so a write in the same tick as
// the one before it can leave the time unchanged. Once the newest write
// is older than any tick, the next one moves the time.
const StampSettle = 2 * time.Second

// Stamp returns a fingerprint of the database at path as its files
// stand: the database file's size and times (on Linux and macOS also its
// inode and change time, which no tool can set back), the WAL's size,
// modification time and header, whose salt changes each time the WAL
// starts over. The WAL's change time is left out: SQLite running as root
// gives the WAL back to the database's owner whenever it opens it, which
// moves that time for readers too. Every commit
// changes it: it appends frames to the WAL (which grows) or, after a
// checkpoint emptied the WAL, writes a new header; a checkpoint writes the
// database file. Readers change nothing in these two files (they use the
// -shm file, left out).
//
// ok is false when the stamp cannot vouch for the database: a file cannot
// be read, or one of them changed less than StampSettle before now (see
// StampSettle). The heartbeat uses it to tell that nothing wrote to the
// board since a beat that found nothing to do (docs/heartbeat.md, "Idle
// beats").
func Stamp(path string, now time.Time) (stamp string, ok bool) {
	var b strings.Builder
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil {
			if os.IsNotExist(err) && p != path {
				b.WriteString("|no wal")
				continue
			}
			return "", false
		}
		changed, id := fi.ModTime(), ""
		if p == path {
			changed, id = fileChanged(fi), fileID(fi)
		}
		if now.Sub(changed) < StampSettle {
			return "", false
		}
		fmt.Fprintf(&b, "|%d %d %d %s", fi.Size(), fi.ModTime().UnixNano(), changed.UnixNano(), id)
	}
	hdr, err := walHeader(path + "-wal")
	if err != nil {
		return "", false
	}
	b.WriteString("|" + hex.EncodeToString(hdr))
	return b.String()[1:], true
}

// walHeader reads the WAL's 32-byte header: magic, format, page size,
// checkpoint sequence, the two salts and their checksum. An absent or
// empty WAL has none.
func walHeader(path string) ([]byte, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hdr := make([]byte, 32)
	n, err := io.ReadFull(f, hdr)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return hdr[:n], nil
	}
	return hdr, err
}
