package doctor

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// The free space below which the disk check warns and fails: transcripts,
// worktrees and the database grow with every run, and SQLite cannot commit
// on a full disk.
const (
	WarnFreeBytes uint64 = 1 << 30   // 1 GiB
	FailFreeBytes uint64 = 100 << 20 // 100 MiB
)

// DiskSpace is the check of the free space of the file system holding dir,
// from FreeBytes's answer.
func DiskSpace(dir string, free uint64, err error) Check {
	c := Check{Name: "disk space"}
	switch {
	case err != nil:
		c.Status, c.Detail = Skip, fmt.Sprintf("cannot measure the free space of %s: %v", dir, err)
	case free < FailFreeBytes:
		c.Status, c.Detail = Fail, fmt.Sprintf("%s free where %s is: runs and the database will fail to write", Bytes(free), dir)
		c.Fix = "free some space on that disk, or move the data directory (BONSAI_DATA_DIR) to a larger one"
	case free < WarnFreeBytes:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s free where %s is: under %s", Bytes(free), dir, Bytes(WarnFreeBytes))
		c.Fix = "free some space on that disk, or remove old worktrees and transcripts of done tickets"
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("%s free where %s is", Bytes(free), dir)
	}
	return c
}

// Bytes formats n in binary units: "512 B", "87.5 MiB", "1.2 GiB".
func Bytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	exp := int(math.Log(float64(n)) / math.Log(unit))
	exp = min(exp, 5)
	v := float64(n) / math.Pow(unit, float64(exp))
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[exp-1])
}

// ExistingParent is p, or the nearest directory above it that exists:
// the disk a data directory not yet made would be on.
func ExistingParent(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(p)
		if up == p {
			return p
		}
		p = up
	}
}
