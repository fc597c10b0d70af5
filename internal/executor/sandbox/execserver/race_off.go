//go:build !race

package execserver

// raceBuild reports a build with the race detector (race_on.go).
const raceBuild = false
