package sandbox

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver"
)

// fetchArg makes the test binary a tiny HTTP client run inside the
// sandbox: `<test binary> fetchArg URL [CA-FILE]` prints the status and
// the body. It takes its proxy from HTTP_PROXY/HTTPS_PROXY itself,
// because net/http never proxies requests to a loopback address.
const fetchArg = "__sandbox-test-fetch"

// pidDelayVar, passed on to the test binary as the command server, sets
// its pidDelay.
const pidDelayVar = "BONSAI_TEST_PID_DELAY"

// TestMain lets the test binary be the bridge (BridgeArg), as the bonsai
// binary is, and the client (fetchArg).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case BridgeArg:
			execserver.PIDDelay, _ = time.ParseDuration(os.Getenv(pidDelayVar))
			os.Exit(BridgeMain(os.Args[2:]))
		case fetchArg:
			os.Exit(fetch(os.Args[2:]))
		}
	}
	code := m.Run()
	removeWarmGoCache()
	os.Exit(code)
}

func fetch(args []string) int {
	u, err := url.Parse(args[0])
	if err != nil {
		fmt.Println(err)
		return 1
	}
	env := "HTTP_PROXY"
	if u.Scheme == "https" {
		env = "HTTPS_PROXY"
	}
	tr := &http.Transport{}
	if p := os.Getenv(env); p != "" {
		pu, err := url.Parse(p)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		tr.Proxy = http.ProxyURL(pu)
	}
	if len(args) > 1 {
		pem, err := os.ReadFile(args[1])
		if err != nil {
			fmt.Println(err)
			return 1
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	resp, err := (&http.Client{Transport: tr}).Get(u.String())
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("status %d\n%s", resp.StatusCode, b)
	return 0
}
