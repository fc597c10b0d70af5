package config

import (
	"strings"
	"testing"
)

func TestProviders_SetGetListParse(t *testing.T) {
	c, err := Default().Set("providers.ollama.baseURL", "http://gpu-box:11434/v1")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get("providers.ollama.baseURL"); got != "http://gpu-box:11434/v1" {
		t.Fatalf("Get = %q", got)
	}
	if Default().Providers != nil {
		t.Fatal("Set changed the receiver's map")
	}
	list := c.List()
	if last := list[len(list)-1]; last.Key != "providers.ollama.baseURL" || last.Value != "http://gpu-box:11434/v1" {
		t.Fatalf("List ends with %+v", last)
	}
	b, err := c.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("cfg.json", b)
	if err != nil || back.BaseURL("ollama") != "http://gpu-box:11434/v1" {
		t.Fatalf("Parse(MarshalFile) = %v, %v\n%s", back.Providers, err, b)
	}
	c, err = c.Set("providers.ollama.baseURL", "")
	if err != nil || c.Providers != nil {
		t.Fatalf("Set to empty = %v, %v", c.Providers, err)
	}
}

func TestProviders_Errors(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"providers.ollama.baseURL", "ftp://x", "must be an http or https URL"},
		{"providers.ollama.baseURL", "localhost:11434", "must be an http or https URL"},
		{"providers.ollama.baseURL", "http://x/v1?a=b", "without ?query"},
		{"providers.olama.baseURL", "http://x", `unknown provider "olama"`},
		{"providers.ollama.url", "http://x", "provider keys are providers.<"},
	} {
		if _, err := Default().Set(tc.key, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %s) = %v, want %q", tc.key, tc.value, err, tc.want)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{`{"providers": {"vllm": {"baseURL": 3}}}`, "cfg.json: providers.vllm.baseURL: must be a string, got 3"},
		{`{"providers": {"vllm": {"baseURL": "file:///x"}}}`, "cfg.json: providers.vllm.baseURL: must be an http or https URL"},
		{`{"providers": {"nope": {}}}`, `cfg.json: providers.nope: unknown provider "nope"`},
		{`{"providers": []}`, "cfg.json: providers: must be an object"},
	} {
		if _, err := Parse("cfg.json", []byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want %q", tc.file, err, tc.want)
		}
	}
}
