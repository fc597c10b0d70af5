package llm_test

import (
	"io"
	"testing"
	"testing/iotest"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestBody_Reader(t *testing.T) {
	var b llm.Body
	for _, s := range []string{`{"a":`, ``, `[1,2,3]`, `,"b":"`, `xyz`, `"}`} {
		b.Write([]byte(s))
	}
	want := `{"a":[1,2,3],"b":"xyz"}`
	if b.Len() != len(want) || string(b.Bytes()) != want {
		t.Fatalf("len %d bytes %q", b.Len(), b.Bytes())
	}
	// Each reader starts afresh and leaves the parts alone.
	for range 2 {
		if err := iotest.TestReader(b.Reader(), []byte(want)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := io.ReadAll(iotest.OneByteReader(b.Reader()))
	if err != nil || string(got) != want {
		t.Errorf("one byte at a time: %q %v", got, err)
	}
}
