// Package execserver is what runs inside a bubblewrap sandbox on the
// sandbox executor's behalf (internal/executor/sandbox): the persistent
// sandbox's command server, and the proxy bridge of a per-command
// sandbox. It links the standard library only, so that the program
// built from it (./bonsai-exec), which the bonsai binary embeds and runs
// in every sandbox, stays small: about 3 MB resident where the whole
// bonsai binary took about 19. It does not link net either: its sockets
// are descriptors that os.File waits on through the runtime's poller
// (sock_linux.go).
//
// The command server (Main with ServeArg) accepts the host's
// connections on the listener it inherits as descriptor 3 and runs one
// command for each (wire_linux.go says the protocol), each in a session
// and process group of its own, and kills what a command leaves behind
// when it ends. The bridge (Main without it) runs one command as its
// child with HTTP(S)_PROXY pointing at a loopback listener it forwards
// to the proxy's unix socket. The package documentation of
// internal/executor/sandbox says what each guarantees.
package execserver
