package awsclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// motoStartTimeout bounds how long startMoto waits for moto_server to answer
// (it imports all of moto first: about 1 s on an idle machine, several on a
// loaded one).
const motoStartTimeout = 20 * time.Second

// startMoto runs `moto_server -H 127.0.0.1 -p PORT` in its own process group
// and returns its URL once it answers HTTP. The process group is killed when
// the test ends. It skips the test when moto_server is not on PATH or does not
// come up in time (printing what it wrote to stderr).
func startMoto(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		t.Skipf("moto_server not on PATH: %v (install moto[server] to run the contract tests against it)", err)
	}
	var lastErr error
	var lastLog string
	// A port picked free can be taken before moto binds it; try a few.
	for attempt := 0; attempt < 3; attempt++ {
		url, log, err := tryStartMoto(t, bin)
		if err == nil {
			return url
		}
		lastErr, lastLog = err, log
		if errors.Is(err, errMotoTimeout) {
			break
		}
	}
	t.Skipf("moto_server (%s) did not start: %v\n--- moto_server output ---\n%s", bin, lastErr, lastLog)
	return ""
}

var errMotoTimeout = errors.New("moto_server did not answer in time")

func tryStartMoto(t *testing.T, bin string) (url, log string, err error) {
	port, err := freeLoopbackPort()
	if err != nil {
		return "", "", err
	}
	out := &tailBuffer{max: 16 << 10}
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = motoProcAttr()
	if err := cmd.Start(); err != nil {
		return "", "", fmt.Errorf("starting %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		killProcessGroup(cmd.Process)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
	}

	url = "http://127.0.0.1:" + strconv.Itoa(port)
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(motoStartTimeout)
	for {
		select {
		case <-exited:
			stop()
			return "", out.String(), fmt.Errorf("moto_server exited before answering (%v)", cmd.ProcessState)
		default:
		}
		if ready(client, url) {
			t.Cleanup(stop)
			return url, "", nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", out.String(), fmt.Errorf("%w (%s)", errMotoTimeout, motoStartTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func ready(c *http.Client, url string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/", nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailBuffer keeps the last max bytes written to it (moto logs every
// request), safe for the concurrent writes of os/exec's copiers.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = append([]byte(nil), w.b[len(w.b)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}
