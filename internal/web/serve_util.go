package web

import (
	"fmt"
	"net"
	"os"

	"github.com/bonsai-run/bonsai/internal/config"
)

// maxLog is the size at which logs/web.log is rotated to web.log.1 when
// the server starts.
const maxLog = 10 << 20

// LoginURL is the link that logs a browser in to the server listening on
// addr. A wildcard address is shown as 127.0.0.1, which reaches it from
// this machine.
func LoginURL(addr net.Addr, token string) string {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return fmt.Sprintf("http://%s/?token=%s", net.JoinHostPort(host, port), token)
}

// OpenLog opens the data directory's logs/web.log for appending, first
// moving a log past 10 MiB to web.log.1.
func OpenLog(d config.Dir) (*os.File, error) {
	path := d.Path("logs", "web.log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLog {
		os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open web log: %w", err)
	}
	return f, nil
}
