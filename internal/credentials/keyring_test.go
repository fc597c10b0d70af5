package credentials

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeSecurity is a stand-in for macOS's security command: it keeps
// passwords in $FAKE_KEYRING and logs its command lines to
// $FAKE_KEYRING.argv. Like the real one, "security -i" reads a command
// from standard input and a missing item exits 44.
const fakeSecurity = `#!/bin/sh
db="$FAKE_KEYRING"
echo "$*" >> "$db.argv"
if [ "$1" = "-i" ]; then
	read -r line
	set -- $line
fi
cmd=$1; shift
svc= acct= pw=
while [ $# -gt 0 ]; do
	case "$1" in
	-s) svc=$2; shift 2;;
	-a) acct=$2; shift 2;;
	-w) if [ "$cmd" = add-generic-password ]; then pw=$2; shift 2; else shift; fi;;
	*) shift;;
	esac
done
case $cmd in
add-generic-password)
	grep -v "^$svc $acct " "$db" > "$db.new" 2>/dev/null
	echo "$svc $acct $pw" >> "$db.new"
	mv "$db.new" "$db";;
find-generic-password)
	line=$(grep "^$svc $acct " "$db" 2>/dev/null) || { echo "security: The specified item could not be found in the keychain." >&2; exit 44; }
	echo "${line##* }";;
*) echo "fake security: $cmd" >&2; exit 2;;
esac
`

// fakeSecretTool is a stand-in for secret-tool: "store" reads the secret
// from standard input, "lookup" prints it or exits 1 quietly.
const fakeSecretTool = `#!/bin/sh
db="$FAKE_KEYRING"
echo "$*" >> "$db.argv"
cmd=$1; shift
if [ "$cmd" = store ]; then shift; fi
key="$2 $4"
case $cmd in
store)
	pw=$(cat)
	grep -v "^$key " "$db" > "$db.new" 2>/dev/null
	echo "$key $pw" >> "$db.new"
	mv "$db.new" "$db";;
lookup)
	line=$(grep "^$key " "$db" 2>/dev/null) || exit 1
	printf %s "${line##* }";;
*) echo "fake secret-tool: $cmd" >&2; exit 2;;
esac
`

// installFake puts an executable named name on PATH and returns the file
// its keyring is kept in.
func installFake(t *testing.T, name, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake keyring commands are shell scripts")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	db := filepath.Join(t.TempDir(), "keyring")
	t.Setenv("FAKE_KEYRING", db)
	return db
}

func testKeyring(t *testing.T, kind, db string) {
	t.Helper()
	dir := t.TempDir()
	if err := Open(dir, Options{Keyring: kind}).Set("anthropic", anthropicKey); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, keyFileName)); !os.IsNotExist(err) {
		t.Fatalf("a key file was written beside a %s key", kind)
	}
	f, err := readFile(filepath.Join(dir, FileName))
	if err != nil || f.Keyring != kind {
		t.Fatalf("credentials.json names keyring %q (%v), want %s", f.Keyring, err, kind)
	}
	got, ok, err := Open(dir, Options{}).Get("anthropic")
	if err != nil || !ok || got != anthropicKey {
		t.Fatalf("Get = %q, %v, %v", got, ok, err)
	}
	stored, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stored))
	if len(fields) != 3 || fields[0] != "bonsai" || fields[1] != f.KeyID || len(fields[2]) != 64 {
		t.Fatalf("keyring holds %q", stored)
	}
	argv, _ := os.ReadFile(db + ".argv")
	if strings.Contains(string(argv), fields[2]) {
		t.Fatalf("the key was passed on a command line:\n%s", argv)
	}
	// A key that went from the keyring is an error that says so.
	os.Remove(db)
	if _, err := Open(dir, Options{}).All(); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("All after the key went = %v", err)
	}
}

func TestKeychainWithFakeSecurity(t *testing.T) {
	testKeyring(t, KindKeychain, installFake(t, "security", fakeSecurity))
}

func TestSecretServiceWithFakeSecretTool(t *testing.T) {
	testKeyring(t, KindSecretService, installFake(t, "secret-tool", fakeSecretTool))
}

// With no keyring asked for, a Linux desktop whose session bus answers
// secret-tool gets the Secret Service; without a bus, the key file.
func TestChooseSecretServiceWhenBusAnswers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service is chosen on Linux")
	}
	installFake(t, "secret-tool", fakeSecretTool)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	if kr, err := chooseKeyring("", t.TempDir()); err != nil || kr.Kind() != KindSecretService {
		t.Fatalf("chooseKeyring = %v, %v", kr, err)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no bus socket in it
	if kr, err := chooseKeyring("", t.TempDir()); err != nil || kr.Kind() != KindFile {
		t.Fatalf("chooseKeyring without a bus = %v, %v", kr, err)
	}
	// A secret-tool that cannot reach the service complains on stderr.
	installFake(t, "secret-tool", "#!/bin/sh\necho 'Cannot autolaunch D-Bus without X11 $DISPLAY' >&2\nexit 1\n")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	if kr, err := chooseKeyring("", t.TempDir()); err != nil || kr.Kind() != KindFile {
		t.Fatalf("chooseKeyring with a dead bus = %v, %v", kr, err)
	}
}

// A keychain that is there but refuses the key (locked, no session) is
// passed over for the key file, unless it was asked for by name.
func TestRefusingKeychainFallsBackToKeyFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service is chosen on Linux")
	}
	installFake(t, "secret-tool", `#!/bin/sh
if [ "$1" = lookup ]; then exit 1; fi
echo 'Cannot create an item in a locked collection' >&2
exit 1
`)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	dir := t.TempDir()
	s := Open(dir, Options{})
	if err := s.Set("anthropic", anthropicKey); err != nil {
		t.Fatal(err)
	}
	if where, _ := s.Keyring(); !strings.Contains(where, "the key file") {
		t.Fatalf("Keyring = %q", where)
	}
	if v, _, err := Open(dir, Options{}).Get("anthropic"); err != nil || v != anthropicKey {
		t.Fatalf("Get = %q, %v", v, err)
	}
	err := Open(t.TempDir(), Options{Keyring: KindSecretService}).Set("anthropic", anthropicKey)
	if err == nil || !strings.Contains(err.Error(), "locked collection") {
		t.Fatalf("Set with the Secret Service asked for = %v", err)
	}
}
