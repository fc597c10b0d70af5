package cli_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdNoSecret fails when any file under a directory holds a string:
// nosecret <dir> <string>. It names every file that does.
func cmdNoSecret(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: nosecret <dir> <string>")
	}
	root, secret := ts.MkAbs(args[0]), []byte(args[1])
	files := 0
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if bytes.Contains(b, secret) {
			found = append(found, path)
		}
		return nil
	})
	ts.Check(err)
	if files == 0 {
		ts.Fatalf("nosecret: no files under %s", root)
	}
	if len(found) > 0 {
		ts.Fatalf("%q found in %s", secret, strings.Join(found, ", "))
	}
	fmt.Fprintf(ts.Stdout(), "%d files checked\n", files)
}

// cmdFreePort puts a free loopback host:port in a variable: freeport <VAR>.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport <VAR>")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Setenv(args[0], l.Addr().String())
	ts.Check(l.Close())
}

// cmdWebGet waits for a bonsai serve at an address to answer, then GETs
// paths with the data directory's web token and prints each body:
// webget <host:port> <path>...
func cmdWebGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: webget <host:port> <path>...")
	}
	tok, err := os.ReadFile(filepath.Join(ts.Getenv("BONSAI_DATA_DIR"), "web-token"))
	ts.Check(err)
	base := "http://" + args[0]
	up := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			up = true
			break
		}
		time.Sleep(20 * time.Millisecond) // polling for the server to listen
	}
	if !up {
		ts.Fatalf("webget: nothing answers at %s", base)
	}
	for _, p := range args[1:] {
		req, err := http.NewRequest(http.MethodGet, base+p, nil)
		ts.Check(err)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := http.DefaultClient.Do(req)
		ts.Check(err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		ts.Check(err)
		if resp.StatusCode != http.StatusOK {
			ts.Fatalf("webget %s: %s\n%s", p, resp.Status, b)
		}
		fmt.Fprintf(ts.Stdout(), "%s %s\n", p, b)
	}
}
