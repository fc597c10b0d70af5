package execserver

import (
	"encoding/binary"
	"slices"
	"testing"
)

// A request survives its encoding, empty strings, NULs and newlines
// included, and a body that does not parse, whole, is refused.
func TestRequest_RoundTrip(t *testing.T) {
	t.Parallel()
	want := Request{Argv: []string{"sh", "-c", "printf 'a\nb\\0'", ""}, Env: []string{"A=1", "B=x\x00y"}, Dir: "/work/tree"}
	msg, err := EncodeRequest(want)
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.BigEndian.Uint32(msg); int(n) != len(msg)-4 {
		t.Fatalf("length prefix %d, body %d bytes", n, len(msg)-4)
	}
	got, err := decodeRequest(msg[4:])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Argv, want.Argv) || !slices.Equal(got.Env, want.Env) || got.Dir != want.Dir {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	body := msg[4:]
	for i := range len(body) {
		if _, err := decodeRequest(body[:i]); err == nil {
			t.Fatalf("a body cut to %d of %d bytes parsed", i, len(body))
		}
	}
	if _, err := decodeRequest(append(slices.Clone(body), 0)); err == nil {
		t.Error("a body with a byte after its directory parsed")
	}
	huge := binary.BigEndian.AppendUint32(nil, 1<<31)
	if _, err := decodeRequest(huge); err == nil {
		t.Error("a list claiming 2^31 strings parsed")
	}
	noArgv, _ := EncodeRequest(Request{Dir: "/"})
	if _, err := decodeRequest(noArgv[4:]); err == nil {
		t.Error("a request without argv parsed")
	}
}

// Each reply the server writes parses back to itself; lines it never
// writes do not parse.
func TestReply_Lines(t *testing.T) {
	t.Parallel()
	code, zero := 137, 0
	for _, r := range []Reply{{Starting: true}, {PID: 42}, {Exit: &code}, {Exit: &zero, TmpFull: true}} {
		line := AppendReply(nil, r)
		if line[len(line)-1] != '\n' {
			t.Fatalf("%+v: line %q has no newline", r, line)
		}
		got, ok := ParseReply(line[:len(line)-1])
		if !ok || got.Starting != r.Starting || got.PID != r.PID || got.TmpFull != r.TmpFull ||
			(got.Exit == nil) != (r.Exit == nil) || got.Exit != nil && *got.Exit != *r.Exit {
			t.Errorf("%q parsed to %+v, %v; want %+v", line, got, ok, r)
		}
	}
	for _, bad := range []string{"", "starting ", "pid", "pid 0", "pid -3", "pid x", "exit", "exit -1", "exit 1 more", "exit 1 tmpfull x", "{\"exit\":0}"} {
		if r, ok := ParseReply([]byte(bad)); ok {
			t.Errorf("%q parsed to %+v", bad, r)
		}
	}
}
