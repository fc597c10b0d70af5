// Package beneath reads and writes files below a root directory without
// following a symbolic link anywhere below it.
//
// Host code uses it for every path the sandboxed agent can write (the
// engines' CLI homes, the worktree, its git metadata): a link the agent
// planted there is refused, never followed, so it cannot make the host
// read or write a file elsewhere. The root itself is the caller's own path
// and is opened as given.
//
// On Linux every path is resolved by one openat2(2) call with
// RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS: the
// kernel refuses "..", an absolute path and a link of any kind, with no
// race. Elsewhere, or on a kernel without openat2 (ENOSYS), it uses
// os.Root (which never leaves the root) and refuses a link found on any
// component by Lstat before opening, with O_NOFOLLOW on the last one.
package beneath
