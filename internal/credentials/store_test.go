package credentials

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const anthropicKey = "sk-ant-api03-0123456789abcdefWXYZ"

func fileStore(t *testing.T, dir string) *Store {
	t.Helper()
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	return Open(dir, Options{Keyring: KindFile, Now: func() time.Time { return now }})
}

func TestKeyFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := fileStore(t, dir)
	if err := s.Set("anthropic", anthropicKey); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("github", "ghp_short"); err != nil {
		t.Fatal(err)
	}
	// A fresh Store, as another process would open it.
	got, ok, err := Open(dir, Options{}).Get("anthropic")
	if err != nil || !ok || got != anthropicKey {
		t.Fatalf("Get = %q, %v, %v", got, ok, err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "anthropic" || list[0].Last4 != "WXYZ" || list[1].Name != "github" || list[1].Last4 != "" ||
		!list[0].SetAt.Equal(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("List = %+v", list)
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), anthropicKey) || strings.Contains(string(raw), "ghp_short") {
		t.Fatalf("credentials.json holds a plain value:\n%s", raw)
	}
	keyRaw, err := os.ReadFile(filepath.Join(dir, keyFileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), strings.Fields(string(keyRaw))[1]) {
		t.Fatal("credentials.json holds the key")
	}
	if runtime.GOOS != "windows" {
		for _, name := range []string{FileName, keyFileName} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %04o, want 0600", name, fi.Mode().Perm())
			}
		}
	}
	if err := s.Remove("anthropic"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("anthropic"); ok {
		t.Fatal("anthropic still stored after Remove")
	}
	var ns *NotStoredError
	if err := s.Remove("anthropic"); !errors.As(err, &ns) {
		t.Fatalf("second Remove = %v, want NotStoredError", err)
	}
	if v, _, _ := s.Get("github"); v != "ghp_short" {
		t.Fatalf("github = %q after removing anthropic", v)
	}
}

func TestNoFileReadsNoKey(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir, Options{Keyring: "nonsense"}) // a keyring would fail if asked
	all, err := s.All()
	if err != nil || len(all) != 0 {
		t.Fatalf("All = %v, %v", all, err)
	}
	if l, err := s.List(); err != nil || l != nil {
		t.Fatalf("List = %v, %v", l, err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("reading created credentials.json")
	}
}

func TestUnknownNameSuggests(t *testing.T) {
	_, err := Lookup("antropic")
	if err == nil || !strings.Contains(err.Error(), `did you mean "anthropic"?`) || !strings.Contains(err.Error(), "gitlab") {
		t.Fatalf("Lookup = %v", err)
	}
	if err := fileStore(t, t.TempDir()).Set("nope", "x"); err == nil {
		t.Fatal("Set of an unknown name worked")
	}
	if n, ok := ForEnv("GITHUB_TOKEN"); !ok || n.Name != "github" {
		t.Fatalf("ForEnv(GITHUB_TOKEN) = %v, %v", n, ok)
	}
}

func TestBadSecretsRefused(t *testing.T) {
	s := fileStore(t, t.TempDir())
	for _, v := range []string{"", "two\nlines", "tab\there", "\xff\xfe"} {
		if err := s.Set("openai", v); err == nil {
			t.Errorf("Set(%q) worked", v)
		}
	}
}

// A corrupt or foreign credentials.json is an error naming it, and Set
// leaves it as it was.
func TestCorruptFileNeverOverwritten(t *testing.T) {
	for name, content := range map[string]string{
		"garbage": "not json at all",
		"foreign": `{"anthropic": "sk-plain"}`,
		"newer":   `{"bonsai": "credentials", "version": 9, "keyring": "file", "keyId": "x", "credentials": {}}`,
		"keyring": `{"bonsai": "credentials", "version": 1, "keyring": "vault", "keyId": "x", "credentials": {}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := fileStore(t, dir)
			var fe *FileError
			if _, err := s.All(); !errors.As(err, &fe) || !strings.Contains(err.Error(), path) {
				t.Fatalf("All = %v, want a FileError naming %s", err, path)
			}
			if err := s.Set("anthropic", anthropicKey); !errors.As(err, &fe) || !strings.Contains(err.Error(), "does not overwrite") {
				t.Fatalf("Set = %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Fatalf("file changed to %s", b)
			}
		})
	}
}

// Without its key (a backup of the data directory without credentials.key,
// another directory's key) the values do not open, and Set refuses to
// write over them.
func TestMissingOrWrongKey(t *testing.T) {
	dir := t.TempDir()
	s := fileStore(t, dir)
	if err := s.Set("anthropic", anthropicKey); err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(dir, keyFileName)
	os.Rename(keyPath, keyPath+".away")
	before, _ := os.ReadFile(filepath.Join(dir, FileName))
	if _, err := Open(dir, Options{}).All(); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("All without the key = %v", err)
	}
	if err := Open(dir, Options{}).Set("openai", "sk-0123456789abcdef"); err == nil {
		t.Fatal("Set without the key worked")
	}
	if after, _ := os.ReadFile(filepath.Join(dir, FileName)); string(after) != string(before) {
		t.Fatal("Set without the key changed credentials.json")
	}

	// Another data directory's key under the same id does not open them.
	other := t.TempDir()
	if err := fileStore(t, other).Set("openai", "sk-0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	f, err := readFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := os.ReadFile(filepath.Join(other, keyFileName))
	forged := f.KeyID + " " + strings.Fields(string(otherKey))[1] + "\n"
	if err := os.WriteFile(keyPath, []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}).All(); err == nil || !strings.Contains(err.Error(), "does not decrypt") {
		t.Fatalf("All with a wrong key = %v", err)
	}
}

// A sealed value copied under another name does not open: the name is
// the additional data.
func TestValueBoundToName(t *testing.T) {
	key := make([]byte, keySize)
	sealed, err := seal(key, "anthropic", anthropicKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unseal(key, "openai", sealed); err == nil {
		t.Fatal("a value sealed for anthropic opened as openai")
	}
	again, _ := seal(key, "anthropic", anthropicKey)
	if again == sealed {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	if v, err := unseal(key, "anthropic", sealed); err != nil || v != anthropicKey {
		t.Fatalf("unseal = %q, %v", v, err)
	}
}

// Stores in parallel (as the web server and a CLI command would be) lose
// no write: updates take the file lock.
func TestConcurrentSets(t *testing.T) {
	dir := t.TempDir()
	names := []string{"anthropic", "openai", "groq", "gemini", "openrouter", "github", "gitlab", "vllm"}
	var wg sync.WaitGroup
	errs := make(chan error, len(names))
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- fileStore(t, dir).Set(n, "secret-value-of-"+n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all, err := Open(dir, Options{}).All()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if all[n] != "secret-value-of-"+n {
			t.Errorf("%s = %q", n, all[n])
		}
	}
}
