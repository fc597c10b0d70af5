package config

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse_Models(t *testing.T) {
	c, err := Parse("cfg.json", []byte(`{"models": {
		"ollama/qwen3:8b": {"contextWindow": 131072, "maxOutputTokens": 16384, "thinking": true},
		"openai/gpt-9.1": {"price": {"input": 2.5, "output": 10}, "images": false}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, out, yes, no, in, outp := 131072, 16384, true, false, 2.5, 10.0
	want := map[string]ModelSettings{
		"ollama/qwen3:8b": {ContextWindow: &ctx, MaxOutputTokens: &out, Thinking: &yes},
		"openai/gpt-9.1":  {Images: &no, Price: &ModelPrice{Input: &in, Output: &outp}},
	}
	if !reflect.DeepEqual(c.Models, want) {
		t.Fatalf("Models = %+v, want %+v", c.Models, want)
	}
	got, _ := json.Marshal(c.CatalogOverrides())
	if string(got) != `{"ollama/qwen3:8b":{"contextWindow":131072,"maxOutputTokens":16384,"thinking":true},"openai/gpt-9.1":{"images":false,"price":{"input":2.5,"output":10}}}` {
		t.Errorf("CatalogOverrides = %s", got)
	}
}

func TestParse_ModelErrors(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"models": 5}`, `cfg.json: models: must be an object`},
		{`{"models": {"qwen": {}}}`, `cfg.json: models.qwen: model must look like provider/model`},
		{`{"models": {"ollama/x": 5}}`, `cfg.json: models.ollama/x: must be an object`},
		{`{"models": {"ollama/x": {"context": 5}}}`, `cfg.json: models.ollama/x.context: unknown key; model keys are models.<provider/model>.{contextWindow,maxOutputTokens,images,thinking,documents,price.input,`},
		{`{"models": {"ollama/x": {"contextWindow": 10}}}`, `cfg.json: models.ollama/x.contextWindow: must be a whole number from 1024 to 100000000, got 10`},
		{`{"models": {"ollama/x": {"images": "yes"}}}`, `cfg.json: models.ollama/x.images: must be true or false, got "yes"`},
		{`{"models": {"ollama/x": {"price": {"input": -1}}}}`, `cfg.json: models.ollama/x.price.input: must be a price in USD per million tokens from 0 to 10000, got -1`},
		{`{"models": {"ollama/x": {"price": {"in": 1}}}}`, `cfg.json: models.ollama/x.price.in: unknown key`},
		{`{"models": {"ollama/x": {"price": 3}}}`, `cfg.json: models.ollama/x.price: must be an object`},
	} {
		_, err := Parse("cfg.json", []byte(tc.json))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v\nwant %s…", tc.json, err, tc.want)
		}
	}
}

func TestConfig_SetModel(t *testing.T) {
	c := Default()
	c1, err := c.Set("models.openai/gpt-4.1.price.input", "$2")
	if err != nil {
		t.Fatal(err)
	}
	c2, err := c1.Set("models.openai/gpt-4.1.contextWindow", "1047576")
	if err != nil {
		t.Fatal(err)
	}
	if c.Models != nil || c1.Models["openai/gpt-4.1"].ContextWindow != nil {
		t.Fatalf("Set changed the config it was called on: %+v, %+v", c.Models, c1.Models)
	}
	for key, want := range map[string]string{
		"models.openai/gpt-4.1.price.input":   "2",
		"models.openai/gpt-4.1.contextWindow": "1047576",
		"models.openai/gpt-4.1.price.output":  "",
		"models.ollama/other.images":          "",
	} {
		if got, err := c2.Get(key); err != nil || got != want {
			t.Errorf("Get(%s) = %q, %v; want %q", key, got, err, want)
		}
	}
	var listed []string
	for _, s := range c2.List() {
		if strings.HasPrefix(s.Key, "models.") {
			listed = append(listed, s.Key+"="+s.Value)
		}
	}
	if want := []string{"models.openai/gpt-4.1.contextWindow=1047576", "models.openai/gpt-4.1.price.input=2"}; !reflect.DeepEqual(listed, want) {
		t.Errorf("List = %v, want %v", listed, want)
	}

	// Saved and loaded back unchanged; "" removes a setting, and the model
	// with its last one.
	path := filepath.Join(t.TempDir(), "config.json")
	if err := Save(path, c2); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil || !reflect.DeepEqual(back.Models, c2.Models) {
		t.Fatalf("Load after Save = %+v, %v; want %+v", back.Models, err, c2.Models)
	}
	c3, err := c2.Set("models.openai/gpt-4.1.price.input", "")
	if err != nil || c3.Models["openai/gpt-4.1"].Price != nil || c2.Models["openai/gpt-4.1"].Price == nil {
		t.Fatalf("removing the only price = %+v, %v (and the original %+v)", c3.Models, err, c2.Models)
	}
	c4, err := c3.Set("models.openai/gpt-4.1.contextWindow", "")
	if err != nil || c4.Models != nil {
		t.Fatalf("removing the last setting = %+v, %v; want no models", c4.Models, err)
	}

	for key, want := range map[string]string{
		"models.openai/gpt-4.1.context":   `unknown key "models.openai/gpt-4.1.context"; model keys are`,
		"models.gpt.contextWindow":        `models.gpt.contextWindow: model must look like provider/model`,
		"models.ollama/x.thinking=yes":    `unknown key`,
		"models.ollama/x.contextWindow.5": `unknown key`,
	} {
		if _, err := c.Set(key, "1"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Set(%s) = %v, want %q", key, err, want)
		}
	}
	for value, want := range map[string]string{
		"lots": `models.ollama/x.contextWindow: must be a whole number from 1024 to 100000000, got "lots"`,
		"100":  `models.ollama/x.contextWindow: must be a whole number from 1024 to 100000000, got 100`,
	} {
		if _, err := c.Set("models.ollama/x.contextWindow", value); err == nil || err.Error() != want {
			t.Errorf("Set(contextWindow, %q) = %v, want %q", value, err, want)
		}
	}
	if _, err := c.Set("models.ollama/x.images", "maybe"); err == nil || !strings.Contains(err.Error(), "must be true or false") {
		t.Errorf("Set(images, maybe) = %v", err)
	}
}
