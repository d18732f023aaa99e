package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startRun runs the command in-process and returns the first stdout line.
func startRun(t *testing.T, args ...string) (firstLine string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Run(ctx, args, pw, io.Discard)
		pw.CloseWithError(err)
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no first line: %v (Run: %v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // keep later output from blocking
	return strings.TrimSuffix(line, "\n"), func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after cancellation")
			return nil
		}
	}
}

func TestRunPrintsAddressAndServes(t *testing.T) {
	line, stop := startRun(t, "-listen", "127.0.0.1:0", "-fixtures", "../../testdata", "-latency", "1ms")
	m := regexp.MustCompile(`^listening on (http://127\.0\.0\.1:[1-9][0-9]*)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q", line)
	}
	resp, err := http.Post(m[1], "application/x-www-form-urlencoded",
		strings.NewReader("Action=GetCallerIdentity&Version=2011-06-15"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "<Account>123456789012</Account>") {
		t.Errorf("STS answer %s", body)
	}
	resp, err = http.Get(m[1] + "/_emulator/stats")
	if err != nil {
		t.Fatal(err)
	}
	var stats map[string]int
	_ = json.NewDecoder(resp.Body).Decode(&stats)
	resp.Body.Close()
	if stats["sts:GetCallerIdentity"] != 1 {
		t.Errorf("stats %v", stats)
	}
	if err := stop(); err != nil {
		t.Errorf("Run returned %v after cancellation", err)
	}
}

func TestRunDefaultFixturesAndThrottling(t *testing.T) {
	line, stop := startRun(t, "-listen", "127.0.0.1:0", "-throttle-rate", "1", "-seed", "7")
	base := strings.TrimPrefix(line, "listening on ")
	resp, err := http.Get(base + "/clusters/demo")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("throttle-rate 1: HTTP %d, want 429", resp.StatusCode)
	}
	if err := stop(); err != nil {
		t.Error(err)
	}
}

func TestRunDeny(t *testing.T) {
	line, stop := startRun(t, "-listen", "127.0.0.1:0", "-deny", "iam:GetRole,ec2:DescribeSubnets")
	base := strings.TrimPrefix(line, "listening on ")
	post := func(form string) (int, string) {
		t.Helper()
		resp, err := http.Post(base, "application/x-www-form-urlencoded", strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := post("Action=GetRole&Version=2010-05-08&RoleName=KarpenterNodeRole-demo"); status != http.StatusForbidden ||
		!strings.Contains(body, "<Code>AccessDenied</Code>") || !strings.Contains(body, "not authorized to perform: iam:GetRole") {
		t.Errorf("GetRole: HTTP %d %s", status, body)
	}
	if status, body := post("Action=DescribeSubnets&Version=2016-11-15"); status != http.StatusForbidden || !strings.Contains(body, "<Code>UnauthorizedOperation</Code>") {
		t.Errorf("DescribeSubnets: HTTP %d %s", status, body)
	}
	if status, body := post("Action=GetInstanceProfile&Version=2010-05-08&InstanceProfileName=KarpenterNodeInstanceProfile-demo"); status != http.StatusOK {
		t.Errorf("GetInstanceProfile is not denied: HTTP %d %s", status, body)
	}
	if err := stop(); err != nil {
		t.Error(err)
	}
}

func TestRunRejects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-listen", "0.0.0.0:0"}, "loopback"},
		{[]string{"-listen", ":0"}, "loopback"},
		{[]string{"-listen", "192.0.2.1:4566"}, "loopback"},
		{[]string{"-listen", "127.0.0.1"}, "missing port"},
		{[]string{"-listen", "127.0.0.1:0", "-fixtures", "/does/not/exist"}, "no such file"},
		{[]string{"-throttle-rate", "2"}, "between 0 and 1"},
		{[]string{"-deny", "s3:GetObject"}, "the emulator serves ec2, ssm, eks, sts, iam"},
		{[]string{"-nope"}, "not defined"},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		err := Run(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%v) = %v, want an error mentioning %q", tc.args, err, tc.want)
		}
	}
}
