package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// ProviderSettings configures one model provider for every process,
// services included, which read no shell profile.
type ProviderSettings struct {
	// BaseURL is the provider's API root, used when the provider's
	// *_BASE_URL variable is unset (an Ollama or vLLM server on another
	// host, a proxy).
	BaseURL string `json:"baseURL,omitempty"`
}

// providersKey is the section of config.json holding provider settings.
const providersKey = "providers"

// providerKeyHelp is what an error about a provider key says the keys are.
func providerKeyHelp() string {
	return "providers.<" + strings.Join(llm.ProviderNames(), "|") + ">.baseURL"
}

// parseProviderKey returns the provider of "providers.<name>.baseURL".
func parseProviderKey(name string) (string, error) {
	rest, _ := strings.CutPrefix(name, providersKey+".")
	p, field, ok := strings.Cut(rest, ".")
	if !ok || field != "baseURL" {
		return "", fmt.Errorf("unknown key %q; provider keys are %s", name, providerKeyHelp())
	}
	if err := checkProvider(p); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

func checkProvider(p string) error {
	if _, ok := llm.LookupProvider(p); !ok {
		return fmt.Errorf("unknown provider %q (known: %s)", p, strings.Join(llm.ProviderNames(), ", "))
	}
	return nil
}

// checkBaseURL refuses a base URL that is not an absolute http(s) URL.
func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(s, " \t\r\n") {
		return fmt.Errorf("must be an http or https URL such as http://localhost:11434/v1, got %q", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("must be an API root without ?query or #fragment, got %q", s)
	}
	return nil
}

// applyProviders reads the providers section of config.json into c.
func applyProviders(c *Config, v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return &FileError{Key: providersKey, Err: fmt.Errorf(`must be an object: {"ollama": {"baseURL": "http://…"}}`)}
	}
	for name, settings := range obj {
		at := providersKey + "." + name
		if err := checkProvider(name); err != nil {
			return &FileError{Key: at, Err: err}
		}
		fields, ok := settings.(map[string]any)
		if !ok {
			return &FileError{Key: at, Err: fmt.Errorf("must be an object")}
		}
		var ps ProviderSettings
		for k, val := range fields {
			if k != "baseURL" {
				return &FileError{Key: at + "." + k, Err: fmt.Errorf("unknown key; provider keys are %s", providerKeyHelp())}
			}
			s, ok := val.(string)
			if !ok {
				return &FileError{Key: at + "." + k, Err: fmt.Errorf("must be a string, got %s", describe(val))}
			}
			if err := checkBaseURL(s); err != nil {
				return &FileError{Key: at + "." + k, Err: err}
			}
			ps.BaseURL = s
		}
		if ps != (ProviderSettings{}) {
			if c.Providers == nil {
				c.Providers = map[string]ProviderSettings{}
			}
			c.Providers[name] = ps
		}
	}
	return nil
}

// setProvider is Set for a providers.<name>.baseURL key; "" removes it.
func (c Config) setProvider(name, value string) (Config, error) {
	p, err := parseProviderKey(name)
	if err != nil {
		return c, err
	}
	value = strings.TrimSpace(value)
	if value != "" {
		if err := checkBaseURL(value); err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
	}
	ps := make(map[string]ProviderSettings, len(c.Providers)+1)
	for k, v := range c.Providers {
		ps[k] = v
	}
	if value == "" {
		delete(ps, p)
	} else {
		ps[p] = ProviderSettings{BaseURL: value}
	}
	if len(ps) == 0 {
		ps = nil
	}
	c.Providers = ps
	return c, nil
}

// providerSettings lists the provider settings of c in `config list`
// order, by provider name.
func (c Config) providerSettings() []Setting {
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Setting
	for _, n := range names {
		if u := c.Providers[n].BaseURL; u != "" {
			out = append(out, Setting{Key: providersKey + "." + n + ".baseURL", Value: u,
				Help: "API root of " + n + " when its *_BASE_URL variable is unset"})
		}
	}
	return out
}

// BaseURL returns the configured API root of provider, or "".
func (c Config) BaseURL(provider string) string { return c.Providers[provider].BaseURL }
