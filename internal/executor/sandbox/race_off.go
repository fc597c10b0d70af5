//go:build !race

package sandbox

// raceBuild reports a build with the race detector (race_on.go).
const raceBuild = false
