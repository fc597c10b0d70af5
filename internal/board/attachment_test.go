package board_test

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestSanitizeName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 100) + ".png"
	for _, tc := range []struct{ in, want string }{
		{"shot.png", "shot.png"},
		{"../../etc/passwd", "passwd"},
		{`..\..\windows\win.ini`, "win.ini"},
		{"a/b/", "file"},
		{"..", "file"},
		{".bashrc", "bashrc"},
		{"evil\x00.png", "evil.png"},
		{"line\nbreak\r.txt", "linebreak.txt"},
		{"esc\x1b[31mred.txt", "esc[31mred.txt"},
		{"rtl\u202egnp.exe", "rtlgnp.exe"},
		{"c:boot.ini", "cboot.ini"},
		{"bad\xffutf8.txt", "badutf8.txt"},
		{"", "file"},
	} {
		if got := board.SanitizeName(tc.in); got != tc.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := board.SanitizeName(long)
	if len(got) > board.MaxAttachmentName || !strings.HasSuffix(got, ".png") || !strings.HasPrefix(got, "é") {
		t.Errorf("SanitizeName(long) = %q (%d bytes), want at most %d bytes ending .png", got, len(got), board.MaxAttachmentName)
	}
}

func TestAttachmentLimitsName(t *testing.T) {
	t.Parallel()
	l := board.AttachmentLimits{File: 25 << 20, Ticket: 100 << 20}
	err := l.Check("huge.bin", 2<<30, 0)
	if err == nil || !strings.Contains(err.Error(), "huge.bin is 2.0 GiB; attachments are limited to 25.0 MiB a file") {
		t.Errorf("err = %v", err)
	}
	if err := l.Check("ok.bin", 1<<20, 99<<20); err != nil {
		t.Errorf("a file that just fits: %v", err)
	}
}
