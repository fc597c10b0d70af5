package cli_test

import (
	"flag"
	"runtime"
	"strconv"
)

// scriptParallelism is how many tests of the package run at once unless
// -parallel says otherwise: twice the CPUs. The scripts spend most of
// their time waiting (for a bonsai process to start and exit under the
// race detector, for a fake model, for git), and at -parallel GOMAXPROCS
// they kept two cores about a third busy. Each script has its own work
// directory, data directory, home and ports, so more of them at once
// change nothing they check.
func scriptParallelism() int { return 2 * runtime.GOMAXPROCS(0) }

// moreParallel wraps m, a *testing.M, so that running it first raises
// -test.parallel to scriptParallelism when the command line left it at
// its default.
func moreParallel(m interface{ Run() int }) interface{ Run() int } {
	return parallelRun{m}
}

type parallelRun struct{ m interface{ Run() int } }

func (p parallelRun) Run() int {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(scriptParallelism()))
	}
	return p.m.Run()
}
