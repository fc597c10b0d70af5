//go:build race

package execserver

// raceBuild: the race detector's shadow memory needs far more address
// space than RLIMIT_DATA lets a bounded command server have, so a race
// build (the tests under -race, where the test binary is the server)
// leaves that one rlimit to the cgroup.
const raceBuild = true
