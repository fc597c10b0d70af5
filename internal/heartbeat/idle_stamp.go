package heartbeat

import (
	"fmt"
	"os"
)

// IdleStamp is the stamp (Options.Idle, Unchanged) of everything a beat
// of the whole board that found nothing to do depends on: this program's
// version, board (the store's own stamp of its files) and the size and
// modification time of each of files (config.json, the binary). "" when
// the board has no stamp or a file cannot be read: the beat then reads
// the board.
func IdleStamp(version, board string, files ...string) string {
	if board == "" {
		return ""
	}
	s := version + "|" + board
	for _, p := range files {
		fi, err := os.Stat(p)
		if err != nil {
			return ""
		}
		s += fmt.Sprintf("|%d %d", fi.Size(), fi.ModTime().UnixNano())
	}
	return s
}
