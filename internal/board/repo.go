package board

import "strings"

// IsLocalRepo reports whether a project's repo names a repository on this
// machine: a path or a file:// URL, not a URL or an scp-like "host:path".
func IsLocalRepo(repo string) bool {
	if strings.HasPrefix(repo, "file://") {
		return true
	}
	if strings.Contains(repo, "://") {
		return false
	}
	// host:path is ssh, unless the colon comes after a slash or is a
	// Windows drive letter (C:\ or C:/).
	i := strings.IndexByte(repo, ':')
	return i < 0 || strings.ContainsAny(repo[:i], `/\`) || (i == 1 && len(repo) > 2 && (repo[2] == '\\' || repo[2] == '/'))
}
