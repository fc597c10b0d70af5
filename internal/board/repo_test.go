package board

import "testing"

func TestIsLocalRepo(t *testing.T) {
	for repo, want := range map[string]bool{
		"/home/me/app": true, "./app": true, "app": true, "file:///srv/app.git": true, `C:\src\app`: true, "C:/src/app": true,
		"../a:b":                     true,
		"https://github.com/o/r.git": false, "ssh://git@host/r.git": false, "git@github.com:o/r.git": false, "host:r.git": false,
	} {
		if got := IsLocalRepo(repo); got != want {
			t.Errorf("IsLocalRepo(%q) = %v, want %v", repo, got, want)
		}
	}
}
