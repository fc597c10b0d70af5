// Command web measures the memory of a real `bonsai serve` process while
// many browsers follow one ticket's live activity and the agent writes one
// huge transcript line (a tool result of tens of MB), and after the
// browsers leave.
//
// Target (issue 10): 40 activity streams on a ticket whose transcript gets
// a 20 MB line keep the server under 200 MB resident, and its memory comes
// back when they close.
//
//	go run ./bench/web [-streams 40] [-size 20000000] [-after 10s] [-bin PATH]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

func main() {
	streams := flag.Int("streams", 40, "activity streams open on the ticket")
	size := flag.Int("size", 20_000_000, "bytes of the huge transcript line")
	after := flag.Duration("after", 10*time.Second, "how long to wait after the streams close before measuring again")
	bin := flag.String("bin", "", "bonsai binary to measure (default: build ./cmd/bonsai)")
	flag.Parse()
	if runtime.GOOS != "linux" {
		log.Fatal("this benchmark reads /proc and runs on Linux only")
	}
	if err := bench(*streams, *size, *after, *bin); err != nil {
		log.Fatal(err)
	}
}

func bench(streams, size int, after time.Duration, bin string) error {
	tmp, err := os.MkdirTemp("", "bonsai-web-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "bonsai")
		build := exec.Command("go", "build", "-o", bin, "./cmd/bonsai")
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	dir := config.Dir(filepath.Join(tmp, "data"))
	if _, err := config.Init(dir); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	transcript, err := seed(dir)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	tok, err := os.ReadFile(dir.WebTokenFile())
	if err != nil {
		return err
	}
	token := strings.TrimSpace(string(tok))
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	serve := exec.Command(bin, "serve", "--addr", addr)
	serve.Env = append(os.Environ(), "BONSAI_DATA_DIR="+string(dir))
	serve.Stderr = os.Stderr
	if err := serve.Start(); err != nil {
		return fmt.Errorf("start serve: %w", err)
	}
	defer func() {
		serve.Process.Signal(os.Interrupt)
		serve.Wait()
	}()
	if err := waitListening(addr); err != nil {
		return err
	}
	pid := serve.Process.Pid
	idle, _ := procKB(pid, "VmRSS")
	fmt.Printf("bonsai serve idle: %d MB resident\n", idle>>10)

	fi, err := os.Stat(transcript)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		wg        sync.WaitGroup
		connected sync.WaitGroup
		done      atomic.Int64
		shown     atomic.Int64
	)
	url := fmt.Sprintf("http://%s/p/demo/1/activity?offset=%d", addr, fi.Size())
	for range streams {
		wg.Add(1)
		connected.Add(1)
		go func() {
			defer wg.Done()
			follow(ctx, url, token, &connected, &done, &shown)
		}()
	}
	connected.Wait()

	var peak atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if kb, err := procKB(pid, "VmRSS"); err == nil && kb > peak.Load() {
				peak.Store(kb)
			}
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	if err := writeHuge(transcript, size); err != nil {
		return err
	}
	for done.Load() < int64(streams) {
		if time.Since(start) > 2*time.Minute {
			return fmt.Errorf("only %d of %d streams saw the entry after the huge line", done.Load(), streams)
		}
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(start)
	close(stopSampling)
	<-sampled
	hwm, _ := procKB(pid, "VmHWM")
	fmt.Printf("%d streams, a %.1f MB line: peak %d MB resident (VmHWM %d MB), %d of %d streams showed a placeholder, all caught up in %v\n",
		streams, float64(size)/1e6, peak.Load()>>10, hwm>>10, shown.Load(), streams, took.Round(time.Millisecond))

	cancel()
	wg.Wait()
	time.Sleep(after) // the Go runtime returns freed memory to the OS over time
	rss, _ := procKB(pid, "VmRSS")
	fmt.Printf("%v after the streams closed: %d MB resident\n", after, rss>>10)
	return nil
}

// seed adds a project and a ticket with a running run and a transcript,
// and returns the transcript's path.
func seed(dir config.Dir) (string, error) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir.DB())
	if err != nil {
		return "", err
	}
	defer db.Close()
	p, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "demo", Repo: string(dir), DefaultBranch: "main", Active: true})
	if err != nil {
		return "", err
	}
	t, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Big output", State: board.InProgress, Priority: 2}, board.Human)
	if err != nil {
		return "", err
	}
	if _, err := db.StartRun(ctx, board.Run{TicketID: t.ID, Task: board.TaskImplement}); err != nil {
		return "", err
	}
	path, err := session.Layout{Root: dir.Sessions()}.Transcript(p.ID, t.ID)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	head := fmt.Sprintf(`{"type":"session","version":1,"id":"s1","timestamp":%q,"cwd":"/work"}`+"\n", ts) +
		fmt.Sprintf(`{"type":"message","id":"e1","parentId":null,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"Work on ticket demo#1"}]}}`+"\n", ts)
	return path, os.WriteFile(path, []byte(head), 0o644)
}

// writeHuge appends a tool result of size bytes in 64 KiB writes, then an
// agent message after it.
func writeHuge(path string, size int) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	fmt.Fprintf(f, `{"type":"message","id":"e2","parentId":"e1","timestamp":%q,"message":{"role":"toolResult","content":[{"type":"text","text":"`, ts)
	chunk := []byte(strings.Repeat("0123456789abcdef", 4096))
	for w := 0; w < size; w += len(chunk) {
		if _, err := f.Write(chunk[:min(len(chunk), size-w)]); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(f, `"}],"toolCallId":"c1","toolName":"bash"}}`+"\n"+
		`{"type":"message","id":"e3","parentId":"e2","timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":"bench sentinel"}]}}`+"\n", ts)
	return err
}

// follow reads one activity stream until ctx ends, counting it done when
// the entry after the huge line arrives. Lines are read with a bounded
// buffer: an event too long for it ends the stream.
func follow(ctx context.Context, url, token string, connected *sync.WaitGroup, done, shown *atomic.Int64) {
	once := sync.OnceFunc(connected.Done)
	defer once()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Printf("stream: %v", err)
		return
	}
	defer res.Body.Close()
	once()
	r := bufio.NewReaderSize(res.Body, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if strings.Contains(string(line), "Entry too large to show") {
			shown.Add(1)
		}
		if strings.Contains(string(line), "bench sentinel") {
			done.Add(1)
		}
		if err == bufio.ErrBufferFull {
			continue // a long line: read on
		}
		if err != nil {
			return
		}
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitListening(addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("bonsai serve did not listen on %s", addr)
}

// procKB reads a field of /proc/PID/status, in kB.
func procKB(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
