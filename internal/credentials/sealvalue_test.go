package credentials

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealValue(t *testing.T) {
	dir := t.TempDir()
	s := fileStore(t, dir)
	// The first Seal makes the key, as the first Set does.
	sealed, err := s.Seal("notify/ci/secret", "hook-signing-secret")
	if err != nil {
		t.Fatal(err)
	}
	if !IsSealed(sealed) || strings.Contains(sealed, "hook-signing-secret") {
		t.Fatalf("Seal = %q", sealed)
	}
	if _, err := os.Stat(filepath.Join(dir, "credentials.key")); err != nil {
		t.Fatalf("no key file after the first Seal: %v", err)
	}
	// Another process opens it; the value does not open under another name.
	other := Open(dir, Options{})
	if got, err := other.Unseal("notify/ci/secret", sealed); err != nil || got != "hook-signing-secret" {
		t.Fatalf("Unseal = %q, %v", got, err)
	}
	if _, err := other.Unseal("notify/cd/secret", sealed); err == nil {
		t.Fatal("a value sealed under one name opened under another")
	}
	// A plain value from before reads as it is.
	if got, err := other.Unseal("notify/ci/secret", "plain"); err != nil || got != "plain" {
		t.Fatalf("Unseal(plain) = %q, %v", got, err)
	}
	// Stored credentials are untouched by sealing.
	if err := s.Set("anthropic", anthropicKey); err != nil {
		t.Fatal(err)
	}
	if got, _, err := other.Get("anthropic"); err != nil || got != anthropicKey {
		t.Fatalf("Get = %q, %v", got, err)
	}
	// Without the key: an error that says what to do, never a value.
	if err := os.Remove(filepath.Join(dir, "credentials.key")); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{}).Unseal("notify/ci/secret", sealed)
	if err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("Unseal without the key: %v", err)
	}
	// Without credentials.json at all.
	_, err = Open(t.TempDir(), Options{}).Unseal("notify/ci/secret", sealed)
	if err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Fatalf("Unseal without credentials.json: %v", err)
	}
}
