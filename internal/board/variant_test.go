package board

import (
	"strings"
	"testing"
)

// TestParseVariantSpecs: engine:model specs, two engines and two models;
// a malformed spec, an unknown engine, a model that is not
// provider/model and a count out of bounds are EINVALID and say which.
func TestParseVariantSpecs(t *testing.T) {
	specs, err := ParseVariantSpecs(" bonsai:fake/one, bonsai:fake/two ,codex:openai/gpt-5")
	if err != nil {
		t.Fatal(err)
	}
	want := []VariantSpec{{EngineBonsai, "fake/one"}, {EngineBonsai, "fake/two"}, {EngineCodex, "openai/gpt-5"}}
	if len(specs) != 3 || specs[0] != want[0] || specs[1] != want[1] || specs[2] != want[2] {
		t.Errorf("specs = %+v, want %+v", specs, want)
	}
	if s := specs[2].String(); s != "codex:openai/gpt-5" {
		t.Errorf("String = %q", s)
	}
	for _, c := range []struct{ in, want string }{
		{"bonsai:fake/one", "give 2 to 5 variants, not 1"},
		{"a:fake/x,b:fake/y,c:fake/z,d:fake/w,e:fake/v,f:fake/u", "variant 1"},
		{"bonsai:fake/a,bonsai:fake/b,bonsai:fake/c,bonsai:fake/d,bonsai:fake/e,bonsai:fake/f", "give 2 to 5 variants, not 6"},
		{"fake/one,bonsai:fake/two", `variant 1 "fake/one" is not engine:model`},
		{"bonsai:fake/one,cursor:fake/two", `variant 2 "cursor:fake/two"`},
		{"bonsai:gpt-5,bonsai:fake/two", "the model must be provider/model"},
		{"bonsai:fake/one,bonsai:fake/ two", "the model must be provider/model"},
		{"bonsai:fake/one,,bonsai:fake/two", `variant 2 "" is not engine:model`},
	} {
		_, err := ParseVariantSpecs(c.in)
		if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseVariantSpecs(%q) = %v, want EINVALID saying %q", c.in, err, c.want)
		}
	}
}

// TestVariantTitle: a variant's title names its ticket and spec within
// MaxTitle, cutting the ticket's title on a character boundary.
func TestVariantTitle(t *testing.T) {
	tk := Ticket{ProjectSlug: "demo", Number: 3, Title: strings.Repeat("é", MaxTitle)}
	got := VariantTitle(tk, 2, VariantSpec{EngineCodex, "openai/gpt-5"})
	if len(got) > MaxTitle || !strings.HasSuffix(got, " [variant 2 of demo#3: codex:openai/gpt-5]") || !strings.HasPrefix(got, "é") {
		t.Errorf("VariantTitle = %q (%d bytes)", got, len(got))
	}
	if err := ValidateTitle(got); err != nil {
		t.Errorf("the title is refused: %v", err)
	}
}
