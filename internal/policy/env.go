package policy

import "strings"

// runEnv names the environment variables that change which program runs,
// what it loads or what it runs on its own: a search path, a preloaded
// library, a start-up file, a pager or editor, an interpreter's options.
var runEnv = set("PATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "PS0", "PS1",
	"PS2", "PS3", "PS4", "CDPATH", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR", "INPUTRC", "MAKEFLAGS", "MFLAGS",
	"GNUMAKEFLAGS", "MAKEFILES", "MAKELEVEL", "PAGER", "MANPAGER", "MANOPT", "EDITOR", "VISUAL", "BROWSER",
	"NODE_OPTIONS", "NODE_PATH", "RUBYOPT", "RUBYLIB", "GOFLAGS", "GOENV", "GOROOT", "GOTOOLCHAIN", "GOPATH",
	"CC", "CXX", "AR", "FC", "CPP", "LD", "CFLAGS", "CXXFLAGS", "LDFLAGS", "RUSTC_WRAPPER", "RUSTC",
	"RUSTFLAGS", "RUSTDOCFLAGS", "CLASSPATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"RIPGREP_CONFIG_PATH", "GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "TMPDIR", "SSH_ASKPASS",
	"TAR_OPTIONS", "GZIP", "XZ_OPT", "ZSTD_CLEVEL", "GREP_OPTIONS", "JQ_LIBRARY_PATH", "LESSKEY", "LESSOPEN",
	"LESSCLOSE", "SYSTEMD_PAGER", "PERLLIB", "TCLLIBPATH", "LUA_PATH", "LUA_CPATH", "R_PROFILE", "R_PROFILE_USER",
	"PHPRC", "PHP_INI_SCAN_DIR", "DOTNET_STARTUP_HOOKS", "ACKRC", "ACK_OPTIONS", "ACK_PAGER", "ACK_PAGER_COLOR")

// runEnvPrefixes are prefixes of such variables, matched case-insensitively.
var runEnvPrefixes = []string{"LD_", "GIT_", "BASH_FUNC_", "NPM_CONFIG_", "YARN_", "PNPM_", "PYTHON", "PERL5",
	"PERL_", "LESS", "CGO_", "CARGO_", "PIP_", "UV_", "DYLD_", "MALLOC_", "GLIBC_", "BUNDLE_", "GEM_", "NODE_",
	"DENO_", "BUN_"}

// changesRun reports whether setting the variable name can change which
// program runs or make a program run code it names: PATH, LD_PRELOAD,
// BASH_ENV, GIT_EXTERNAL_DIFF, MAKEFLAGS, PAGER and the like.
func changesRun(name string) bool {
	if runEnv[name] || strings.HasSuffix(name, "_PAGER") || strings.HasSuffix(name, "PAGER") ||
		strings.HasSuffix(name, "_EDITOR") || strings.HasSuffix(name, "_SHELL") || name == "SHELL" {
		return true
	}
	up := strings.ToUpper(name)
	for _, p := range runEnvPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return false
}

// envChange notes, outside auto mode, that a command sets a variable that
// changes what runs: a person must approve it, whatever the program.
func (j *judge) envChange(name, cmd string) {
	j.askUnlessAuto("env-changes-program", "setting "+name+" changes which program runs or what it loads, so a person must approve it", cmd)
}
