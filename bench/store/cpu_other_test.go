//go:build !unix

package storebench

import "testing"

// cpuMeter reports nothing where getrusage does not exist.
type cpuMeter struct{}

func startCPU() cpuMeter { return cpuMeter{} }

func (cpuMeter) report(b *testing.B) {}
