package autostart

import "testing"

// TestWindowsUser: the Windows worker task starts at the logon of
// DOMAIN\name, or of the bare name when Windows sets no domain.
func TestWindowsUser(t *testing.T) {
	for _, tc := range []struct{ name, domain, want string }{
		{"ana", "OFFICE", `OFFICE\ana`},
		{"ana", "", "ana"},
		{"", "OFFICE", ""},
	} {
		env := map[string]string{"USERNAME": tc.name, "USERDOMAIN": tc.domain}
		if got := WindowsUser(func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("WindowsUser(%q, %q) = %q, want %q", tc.name, tc.domain, got, tc.want)
		}
	}
}
