package policy

import "testing"

// outcome is a verdict and the rule that gave it.
type outcome struct {
	v    Verdict
	rule string
}

var (
	reads    = outcome{Allow, "read-only-builtin"}
	askMode  = outcome{Ask, "ask-mode"}
	roDeny   = outcome{Deny, "read-only-mode"}
	roAsk    = outcome{Ask, "read-only-unknown"}
	envAsk   = outcome{Ask, "env-changes-program"}
	pathAsk  = outcome{Ask, "program-path"}
	subsAsk  = outcome{Ask, "subscript-eval"}
	patAllow = outcome{Allow, "allow-pattern"}
)

// escapeCase is one program and one of its documented escapes (a shell
// escape, a file write, a library load, a program it names), with what ask
// mode and read-only mode decide.
type escapeCase struct {
	prog, escape, cmd string
	ask, ro           outcome
}

// writer is an escape read-only mode denies as a writer and ask mode asks.
func writer(prog, escape, cmd string) escapeCase {
	return escapeCase{prog, escape, cmd, askMode, roDeny}
}

// asked is an escape both modes ask a person about, under rule.
func asked(prog, escape, cmd string, o outcome) escapeCase {
	return escapeCase{prog, escape, cmd, o, o}
}

// reader is a use of the program that stays on the read-only list.
func reader(prog, cmd string) escapeCase {
	return escapeCase{prog, "none", cmd, reads, reads}
}

// escapeCases checks every program on the built-in read-only list against
// its known escapes, GTFOBins-style (issue 25, finding 3), and the harmless
// uses that must stay read-only.
var escapeCases = []escapeCase{
	reader("sed", "sed -n 1,5p main.go"),
	reader("sed", "sed -e 's/a/b/g' -e '/x/d' f"),
	reader("sed", "sed -ne 's/a/b/p' f"),
	reader("sed", "sed '/a/,/b/{s/x/y/;p}' f"),
	reader("sed", "sed -E 's#a(b)#\\1#g' f"),
	reader("sed", "sed 'y/abc/xyz/' f"),
	reader("sed", "sed '$a appended text' f"),
	reader("sed", "sed --sandbox 's/x/y/w out' f"),
	reader("sed", "sed 's/[^/]*$//' f"),
	reader("sed", "sed -e :a -e '$!N;s/\\n//;ta' f"),
	writer("sed", "w after a bracket hiding the delimiter", "sed 's/[/]/x/w out.txt' f"),
	writer("sed", "e command", "sed '1e touch pwned' f"),
	writer("sed", "e command after a block", "sed -n '/x/{p;e id\n}' f"),
	writer("sed", "s///e", "sed 's/.*/touch pwned/e' f"),
	writer("sed", "s///w", "sed 's/x/y/w out.txt' f"),
	writer("sed", "w command", "sed -n 'w out.txt' f"),
	writer("sed", "W command", "sed 'W out.txt' f"),
	writer("sed", "w in -e", "sed -n -e p -e 'w out.txt' f"),
	writer("sed", "w in --expression=", "sed --expression='w out.txt' f"),
	writer("sed", "-i", "sed -i s/a/b/ f"),
	writer("sed", "-i in a cluster", "sed -ni s/a/b/p f"),
	writer("sed", "--in-place", "sed --in-place=.bak s/a/b/ f"),
	writer("sed", "script file", "sed -f script.sed f"),
	writer("sed", "computed script", "sed \"$S\" f"),
	writer("sed", "unreadable script", "sed 'Z' f"),
	reader("rg", "rg -n TODO internal/"),
	reader("rg", "rg --search-zip foo"),
	reader("rg", "rg foo -- *"),
	writer("rg", "--pre", "rg --pre ./script foo"),
	writer("rg", "--pre=", "rg --pre=./script foo"),
	writer("rg", "--pre-glob", "rg --pre-glob '*.pdf' foo"),
	writer("rg", "--hostname-bin", "rg --hostname-bin=./x --hyperlink-format=default foo"),
	escapeCase{"rg", "glob naming a --pre file", "rg foo *", askMode, roAsk},
	escapeCase{"rg", "xargs adds options", "find . | xargs rg foo", askMode, roAsk},
	escapeCase{"rg", "a computed argument", "rg $OPTS foo", askMode, roAsk},
	writer("ag", "--pager", "ag --pager ./x foo"),
	writer("ack", "--output", "ack --output='$&' foo"),
	writer("ack", "--pager", "ack --pager=./x foo"),
	reader("less", "less README.md"),
	writer("less", "-o log file", "less -o out.txt f"),
	writer("less", "-O log file", "less -Oout.txt f"),
	writer("less", "--log-file", "less --log-file=out.txt f"),
	writer("less", "lesskey file", "less -k keys f"),
	writer("less", "+!command", "less +'!touch pwned' f"),
	asked("less", "LESSOPEN", "LESSOPEN='|./x %s' less f", envAsk),
	reader("more", "more README.md"),
	reader("tree", "tree -L 2"),
	writer("tree", "-o", "tree -o out.txt"),
	writer("tree", "-R writes 00Tree.html", "tree -R -H . "),
	reader("file", "file -m magic f"),
	writer("file", "-C compiles magic.mgc", "file -C -m magic"),
	reader("fd", "fd -e go foo"),
	writer("fd", "-x", "fd -x rm"),
	writer("fd", "-X", "fd . -X rm"),
	writer("fd", "--exec", "fd --exec rm"),
	writer("fdfind", "--exec-batch", "fdfind --exec-batch rm"),
	reader("find", "find . -name '*.go' -type f"),
	reader("find", "find . -exec cat {} +"),
	writer("find", "-delete", "find . -delete"),
	writer("find", "-fprint", "find . -fprint out.txt"),
	writer("find", "-fls", "find . -fls out.txt"),
	writer("find", "-exec a writer", "find . -exec rm {} +"),
	asked("find", "-exec a worktree program", "find . -exec ./x {} \\;", pathAsk),
	escapeCase{"find", "-execdir a writer", "find . -execdir mv {} /tmp \\;", askMode, roDeny},
	reader("sort", "sort -k2 -t, f"),
	writer("sort", "-o", "sort -o out.txt f"),
	writer("sort", "-o in a cluster", "sort -uo out.txt f"),
	writer("sort", "--output", "sort --output=out.txt f"),
	writer("sort", "--compress-program", "sort --compress-program=./x f"),
	reader("uniq", "uniq -c f"),
	writer("uniq", "output file", "uniq in.txt out.txt"),
	reader("date", "date -Iseconds"),
	reader("date", "date +%s"),
	writer("date", "-s", "date -s 2020-01-01"),
	writer("date", "--set", "date --set=2020-01-01"),
	reader("hostname", "hostname"),
	escapeCase{"hostname", "sets the name", "hostname evil", askMode, roAsk},
	reader("test", "test -f go.mod"),
	reader("[", "[ -n \"$x\" ]"),
	reader("test", "test -v name"),
	writer("test", "-v subscript", "test -v 'a[$(touch pwned)]'"),
	writer("[", "-v subscript", "[ -v 'a[`touch pwned`]' ]"),
	writer("test", "-v computed", "test -v \"$n\""),
	reader("printf", "printf '%s\\n' \"$x\""),
	reader("printf", "printf -v out %s x"),
	writer("printf", "-v subscript", "printf -v 'a[$(touch pwned)]' x"),
	writer("printf", "-v PATH", "printf -v PATH %s ."),
	asked("[[", "-v subscript", "[[ -v 'a[$(touch pwned)]' ]]", subsAsk),
	asked("[[", "arithmetic subscript", "[[ 'a[$(touch pwned)]' -eq 1 ]]", subsAsk),
	asked("declare", "subscript", "declare 'a[$(touch pwned)]=1'", subsAsk),
	asked("declare", "nameref subscript", "declare -n r='a[$(touch pwned)]'", subsAsk),
	reader("git", "git log --oneline -5"),
	reader("git", "git -C sub status"),
	reader("git", "git --no-pager diff HEAD~1"),
	reader("git", "git log --output-indicator-new=+"),
	writer("git", "diff --output", "git diff --output=out.txt"),
	writer("git", "log --output", "git log --output out.txt"),
	writer("git", "show --output", "git show --output=out.txt HEAD"),
	writer("git", "grep -O", "git grep -O'touch pwned' foo"),
	writer("git", "grep -O in a cluster", "git grep -nO'touch pwned' foo"),
	writer("git", "grep --open-files-in-pager", "git grep --open-files-in-pager=./x foo"),
	writer("git", "log --ext-diff", "git log -p --ext-diff"),
	writer("git", "log --textconv", "git log -p --textconv"),
	writer("git", "cat-file --filters", "git cat-file --filters HEAD:x"),
	writer("git", "-c unprotected key", "git -c core.abbrev=12 log"),
	writer("git", "--exec-path=", "git --exec-path=. log"),
	writer("git", "--git-dir", "git --git-dir=testdata/repo log"),
	writer("git", "--work-tree", "git --work-tree=/ status"),
	writer("git", "-p pager", "git -p log"),
	writer("git", "help --web", "git help -w log"),
	asked("git", "GIT_EXTERNAL_DIFF", "GIT_EXTERNAL_DIFF=./x git diff", envAsk),
	asked("git", "PAGER", "PAGER=./x git log", envAsk),
	asked("git", "HOME with a .gitconfig", "HOME=. git log", envAsk),
	reader("go", "go vet ./..."),
	reader("go", "go list -m all"),
	reader("go", "go env GOPATH"),
	writer("go", "vet -vettool", "go vet -vettool=./x ./..."),
	writer("go", "vet --vettool", "go vet --vettool ./x ./..."),
	writer("go", "list -toolexec", "go list -toolexec ./x ./..."),
	writer("go", "list -mod=mod", "go list -mod=mod ./..."),
	writer("go", "env -w", "go env -w GOFLAGS=-toolexec=./x"),
	asked("go", "GOFLAGS", "GOFLAGS=-toolexec=./x go vet ./...", envAsk),
	escapeCase{"go", "build -exec", "go build -exec ./x", askMode, roAsk},
	reader("ls", "ls -la"),
	asked("ls", "PATH", "PATH=.:$PATH ls", envAsk),
	asked("ls", "PATH in an earlier statement", "PATH=.:$PATH; ls", envAsk),
	asked("ls", "export PATH", "export PATH=.:$PATH; ls", envAsk),
	asked("ls", "declare -x PATH", "declare -x 'PATH=.'; ls", envAsk),
	asked("ls", "env PATH=", "env PATH=. ls", envAsk),
	asked("cat", "LD_PRELOAD", "LD_PRELOAD=./x.so cat f", envAsk),
	asked("cat", "LD_LIBRARY_PATH", "env LD_LIBRARY_PATH=. cat f", envAsk),
	asked("bash", "BASH_ENV", "BASH_ENV=./x bash -c ls", envAsk),
	asked("sh", "ENV", "ENV=./x sh -c ls", envAsk),
	asked("bash", "SHELLOPTS", "SHELLOPTS=xtrace PS4='$(touch pwned)' bash -c ls", envAsk),
	asked("bash", "exported function", "env 'BASH_FUNC_ls%%=() { touch pwned; }' bash -c ls", envAsk),
	asked("cat", "IFS", "IFS=/ cat f", envAsk),
	asked("rg", "RIPGREP_CONFIG_PATH", "RIPGREP_CONFIG_PATH=./rc rg foo", envAsk),
	asked("ls", "a worktree program", "./ls", pathAsk),
	asked("ls", "a program under a worktree directory", "bin/ls", pathAsk),
	asked("ls", "a program above the worktree", "../ls", pathAsk),
	asked("ls", "a program in the workspace by absolute path", "/work/ws/bin/ls", pathAsk),
	asked("cat", "a program in /tmp", "/tmp/cat f", pathAsk),
	asked("cat", "command with a worktree program", "command ./cat f", pathAsk),
	reader("cat", "/usr/bin/cat f"),
	reader("ls", "ls > /dev/fd/1"),
	writer("ls", "redirect through /dev/fd/..", "ls > /dev/fd/../../../work/ws/x"),
	writer("ls", "redirect through /proc/self/fd", "ls > /proc/self/fd/1"),
	reader("jq", "jq -r .name package.json"),
	asked("ls", "for PATH in …", "for PATH in . ; do ls; done", envAsk),
	writer("time", "-o", "command time -o out.txt ls"),
	reader("time", "time ls"),
	reader("diff", "diff --to-file=a b c"),
	reader("grep", "find . | xargs grep foo"),
	// Not on the list: asked in ask mode, and writers denied in read-only mode.
	escapeCase{"awk", "system()", "awk 'BEGIN{system(\"touch pwned\")}'", askMode, roAsk},
	escapeCase{"xxd", "-r writes", "xxd -r a b", askMode, roAsk},
	escapeCase{"patch", "writes", "patch -p1", askMode, roDeny},
	escapeCase{"man", "-P", "man -P ./x ls", askMode, roAsk},
	escapeCase{"yq", "-i", "yq -i .a=1 f.yaml", askMode, roAsk},
	escapeCase{"tar", "writes", "tar xf a.tar", askMode, roAsk},
	escapeCase{"zip", "writes", "zip a.zip f", askMode, roAsk},
}

func TestJudge_ReadOnlyEscapes(t *testing.T) {
	ask, ro := with(ModeAsk, nil, nil), with(ModeReadOnly, nil, nil)
	for _, c := range escapeCases {
		for _, m := range []struct {
			cfg  Config
			want outcome
		}{{ask, c.ask}, {ro, c.ro}} {
			d := Judge(c.cmd, m.cfg)
			if d.Verdict != m.want.v || d.Rule != m.want.rule {
				t.Errorf("%s, %s: Judge(%q, %s) = %s; want %s (%s)", c.prog, c.escape, c.cmd, m.cfg.Mode, d, m.want.v, m.want.rule)
			}
		}
		if d := Judge(c.cmd, auto); d.Verdict == Deny {
			t.Errorf("%s, %s: auto mode denies %q: %s", c.prog, c.escape, c.cmd, d)
		}
	}
}

// TestJudge_GrantCoversOnlyItself: after a person always-allowed
// `make test` (an Allow pattern of the project), a committed ./make, a
// changed PATH, MAKEFLAGS or LD_PRELOAD, a redirection, an env wrapper,
// xargs and an extra argument each need a new approval (issue 25, finding 4).
func TestJudge_GrantCoversOnlyItself(t *testing.T) {
	for _, mode := range []Mode{ModeAsk, ModeReadOnly} {
		cfg := with(mode, []string{"make test"}, nil)
		if d := Judge("make test", cfg); d.Verdict != Allow || d.Rule != patAllow.rule {
			t.Fatalf("%s: the granted command itself: %s", mode, d)
		}
		for _, cmd := range []string{
			"./make test",
			"PATH=.:$PATH make test",
			"PATH=.:$PATH; make test",
			"MAKEFLAGS='--eval=$(shell touch pwned)' make test",
			"LD_PRELOAD=./x.so make test",
			"make test >> ~/.bashrc",
			"env MAKEFLAGS=-j9 make test",
			"env X=1 make test",
			"echo -f evil.mk | xargs make test",
			"make test -f evil.mk",
			"/tmp/make test",
			"bin/make test",
		} {
			if d := Judge(cmd, cfg); d.Verdict == Allow {
				t.Errorf("%s: Judge(%q) = %s; want a new approval", mode, cmd, d)
			}
		}
	}
}
