package forge

// tokenEnv are the variables that give a forge's token, in the order
// they are read; the credentials store's names read the same.
var tokenEnv = map[Kind][]string{
	GitHub: {"GH_TOKEN", "GITHUB_TOKEN"},
	GitLab: {"GITLAB_TOKEN"},
	Gitea:  {"GITEA_TOKEN"},
}

// TokenEnv returns the variables that give kind k's token.
func TokenEnv(k Kind) []string { return append([]string(nil), tokenEnv[k]...) }

// Token returns kind k's token from getenv (the CLI's environment
// reader, which falls back to the credentials store), "" when none.
func Token(k Kind, getenv func(string) string) string {
	for _, v := range tokenEnv[k] {
		if t := getenv(v); t != "" {
			return t
		}
	}
	return ""
}
