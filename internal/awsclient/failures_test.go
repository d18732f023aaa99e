package awsclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	. "github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// silentListener accepts connections on loopback and never answers; it
// counts the connections.
func silentListener(t *testing.T) (url string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns = &atomic.Int32{}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					_ = c.Close() // the test is over
				}
				return
			}
			conns.Add(1)
			held = append(held, c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close() // ends the accept loop
		<-done
	})
	return "http://" + ln.Addr().String(), conns
}

func staticKeys(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
}

// An endpoint that accepts and never answers fails the first request after
// the response timeout, once (not retried, although 25 retries are
// configured), and every later request to it, of any service, at once with
// an error naming its own service and operation, the endpoint and the
// request that found it silent.
func TestSilentEndpointFailsOnceAndFast(t *testing.T) {
	staticKeys(t)
	url, conns := silentListener(t)
	c := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: -1,
		Endpoints: Endpoints{EC2: url, SSM: url, IAM: url},
		Timeouts:  Timeouts{Connect: 200 * time.Millisecond, Response: 300 * time.Millisecond}}))
	ctx := context.Background()
	start := time.Now()
	_, err := c.DescribeInstanceTypes(ctx)
	first := time.Since(start)
	var ee *EndpointError
	if !errors.As(err, &ee) {
		t.Fatalf("want an EndpointError, got %v", err)
	}
	if ee.Endpoint != url || ee.Permission() != "ec2:DescribeInstanceTypes" || !strings.Contains(ee.Reason, "did not answer within 300ms") {
		t.Errorf("endpoint error %+v", ee)
	}
	for _, want := range []string{"EC2 endpoint " + url, "did not answer within 300ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if first < 300*time.Millisecond || first > 3*time.Second {
		t.Errorf("the first request failed after %s, want about the 300ms response timeout", first)
	}
	start = time.Now()
	_, err = c.GetParameters(ctx, []string{"/x"})
	_, err2 := c.GetRole(ctx, "r")
	if later := time.Since(start); later > 100*time.Millisecond {
		t.Errorf("later requests to the silent endpoint took %s, want an immediate failure", later)
	}
	// Each names its own service and what found the endpoint silent, so
	// an SSM or EKS call does not read as EC2's.
	for err, want := range map[error]string{err: "ssm:GetParameters", err2: "iam:GetRole"} {
		var again *EndpointError
		if !errors.As(err, &again) || again.First() != ee || again.Permission() != want ||
			!strings.Contains(err.Error(), " endpoint "+url+" did not answer within 300ms for "+want+", as for ec2:DescribeInstanceTypes before it in this run") {
			t.Errorf("a later request failed with %v, want one naming %s after the remembered %v", err, want, ee)
		}
	}
	if _, err := c.DescribeInstanceTypes(ctx); !errors.Is(err, ee) && !strings.Contains(fmt.Sprint(err), ee.Error()) {
		t.Errorf("the same request again: %v", err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1 (no retry, no second wait)", n)
	}
}

// A refused connection and a name that does not resolve are endpoint
// errors too, not retried.
func TestRefusedEndpointIsNotRetried(t *testing.T) {
	staticKeys(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	for name, endpoint := range map[string]string{"refused": url, "unresolvable": "http://awsemu.invalid"} {
		t.Run(name, func(t *testing.T) {
			c := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: -1, Endpoints: Endpoints{EC2: endpoint}, Timeouts: Timeouts{Connect: time.Second}}))
			start := time.Now()
			_, err := c.DescribeInstanceTypes(context.Background())
			var ee *EndpointError
			if !errors.As(err, &ee) || ee.Endpoint != endpoint {
				t.Fatalf("want an EndpointError for %s, got %v", endpoint, err)
			}
			// 25 retries would back off for about two minutes.
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("failing took %s", took)
			}
		})
	}
}

// Denied reads name the IAM action to grant; a role that cannot be assumed
// names sts:AssumeRole and is a configuration error of assume_role, whatever
// call needed the credentials.
func TestDeniedNamesThePermission(t *testing.T) {
	staticKeys(t)
	url, _ := awsemutest.Start(t, awsemu.Options{Deny: []string{"iam:GetRole", "ec2:DescribeSubnets", "sts:AssumeRole"}})
	endpoints := Endpoints{EC2: url, SSM: url, EKS: url, STS: url, IAM: url}
	c := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: 2, Endpoints: endpoints}))
	ctx := context.Background()
	_, err := c.GetRole(ctx, "KarpenterNodeRole-demo")
	if action, ok := Denied(err); !ok || action != "iam:GetRole" {
		t.Errorf("Denied(%v) = %q, %v", err, action, ok)
	}
	_, err = c.SelectSubnets(ctx, []SubnetTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}})
	if action, ok := Denied(err); !ok || action != "ec2:DescribeSubnets" {
		t.Errorf("Denied(%v) = %q, %v", err, action, ok)
	}
	if _, err := c.DescribeInstanceTypes(ctx); err != nil {
		t.Errorf("a read not denied failed: %v", err)
	}
	if action, ok := Denied(fmt.Errorf("x: %w", errors.New("AccessDenied"))); ok {
		t.Errorf("a plain error is not a denial: %q", action)
	}

	assumed := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: 2, Endpoints: endpoints,
		AssumeRole: &AssumeRole{RoleARN: "arn:aws:iam::" + awsemu.AccountID + ":role/KarpenterNodeRole-demo"}}))
	_, err = assumed.DescribeInstanceTypes(ctx)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Setting != "assume_role" {
		t.Errorf("want a ConfigError of assume_role, got %v", err)
	}
	if action, ok := Denied(err); !ok || action != "sts:AssumeRole" {
		t.Errorf("Denied(%v) = %q, %v; want sts:AssumeRole", err, action, ok)
	}
}

// Verify finds the configuration problems before any read: a profile that
// does not exist, no region, a role that cannot be assumed. Unknown
// settings are not judged.
func TestVerify(t *testing.T) {
	staticKeys(t)
	url, srv := awsemutest.Start(t, awsemu.Options{Deny: []string{"sts:AssumeRole"}})
	endpoints := Endpoints{EC2: url, STS: url}
	role := &AssumeRole{RoleARN: "arn:aws:iam::" + awsemu.AccountID + ":role/KarpenterNodeRole-demo"}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		cfg     Config
		setting string
	}{
		{"ok", Config{Region: "us-east-1", Endpoints: endpoints}, ""},
		{"profile", Config{Region: "us-east-1", Profile: "nope", Endpoints: endpoints}, "profile"},
		{"region", Config{Endpoints: endpoints}, "region"},
		{"assume_role", Config{Region: "us-east-1", Endpoints: endpoints, AssumeRole: role, MaxRetries: 0}, "assume_role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "region" {
				t.Setenv("AWS_REGION", "")
				t.Setenv("AWS_DEFAULT_REGION", "")
			}
			err := NewClients(tc.cfg).Verify(ctx)
			var ce *ConfigError
			switch {
			case tc.setting == "" && err != nil:
				t.Errorf("Verify: %v", err)
			case tc.setting != "" && (!errors.As(err, &ce) || ce.Setting != tc.setting):
				t.Errorf("Verify = %v, want a ConfigError of %s", err, tc.setting)
			}
		})
	}
	if n := srv.Stats()["sts:AssumeRole"]; n != 1 {
		t.Errorf("%d AssumeRole calls, want 1 (a denial is not retried)", n)
	}
	if err := NewClients(Config{Unknown: []string{"region"}}).Verify(ctx); !errors.Is(err, ErrUnknownConfig) {
		t.Errorf("unknown settings: %v, want ErrUnknownConfig", err)
	}
	if _, err := os.Stat(os.Getenv("AWS_CONFIG_FILE")); err == nil {
		t.Fatal("the test's shared config file should not exist")
	}
}

func TestCredentialsRejected(t *testing.T) {
	for code, want := range map[string]bool{"AuthFailure": true, "InvalidClientTokenId": true, "UnrecognizedClientException": true,
		"SignatureDoesNotMatch": true, "ExpiredToken": true, "AccessDenied": false, "Throttling": false} {
		err := fmt.Errorf("op: %w", &smithy.GenericAPIError{Code: code, Message: "m"})
		if got, ok := CredentialsRejected(err); ok != want || ok && got != code {
			t.Errorf("CredentialsRejected(%s) = %q, %v", code, got, ok)
		}
	}
}
