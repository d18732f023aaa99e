package awsemu_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

func TestThrottlingErrorsAreThrottles(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{ThrottleRate: 1}, nil) // one attempt per call
	ctx := context.Background()
	isThrottle := retry.IsErrorThrottles(retry.DefaultThrottles)
	for _, tc := range []struct {
		service, code string
		status        int
		call          func() error
	}{
		{"ec2", "RequestLimitExceeded", 503, func() error {
			_, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{})
			return err
		}},
		{"ssm", "ThrottlingException", 400, func() error {
			_, err := e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(al2023Recommended)})
			return err
		}},
		{"eks", "ThrottlingException", 429, func() error {
			_, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("demo")})
			return err
		}},
		{"sts", "Throttling", 400, func() error {
			_, err := e.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
			return err
		}},
	} {
		t.Run(tc.service, func(t *testing.T) {
			err := tc.call()
			if code := apiCode(t, err); code != tc.code {
				t.Errorf("code %s, want %s", code, tc.code)
			}
			if isThrottle.IsErrorThrottle(err) != aws.TrueTernary {
				t.Errorf("the SDK does not classify %v as throttling", err)
			}
			var re *awshttp.ResponseError
			if !errors.As(err, &re) || re.HTTPStatusCode() != tc.status {
				t.Errorf("HTTP status of %v, want %d", err, tc.status)
			}
		})
	}
	st := e.Srv.Stats()
	if st["throttled"] != 4 || st["total"] != 4 {
		t.Errorf("stats %v, want 4 throttled of 4", st)
	}
}

// fastRetries retries throttles without sleeping or a retry quota, so the
// test measures the emulator, not the backoff.
func fastRetries() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 10
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.RateLimiter = ratelimit.None
	})
}

func TestRetriesOvercomeThrottling(t *testing.T) {
	run := func() map[string]int {
		e := newEnv(t, nil, awsemu.Options{ThrottleRate: 0.3, Seed: 42}, fastRetries)
		ctx := context.Background()
		for range 30 {
			if _, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"self"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(al2023Recommended)}); err != nil {
				t.Fatal(err)
			}
		}
		return e.Srv.Stats()
	}
	st := run()
	if st["throttled"] == 0 || st["total"] != 60+st["throttled"] {
		t.Errorf("stats %v: want some throttled requests, each retried", st)
	}
	// Same seed, same sequence: the same requests are throttled.
	if again := run(); again["throttled"] != st["throttled"] {
		t.Errorf("throttled %d then %d with the same seed", st["throttled"], again["throttled"])
	}
}

func TestLatencyRespectsCancellation(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{Latency: 5 * time.Second}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("want context.DeadlineExceeded, got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("call took %v despite the 100ms deadline", d)
	}

	short := newEnv(t, nil, awsemu.Options{Latency: 50 * time.Millisecond}, nil)
	start = time.Now()
	if _, err := short.STS.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answered after %v, want >= 50ms", d)
	}
}

func TestStatsAndReset(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	for range 2 {
		if _, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"self"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.EC2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.SSM.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{al2023Recommended}}); err != nil {
		t.Fatal(err)
	}
	_, _ = e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/missing")}) // errors count too
	if _, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("demo")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatal(err)
	}

	want := map[string]int{
		"ec2:DescribeImages": 2, "ec2:DescribeInstanceTypes": 1, "ssm:GetParameters": 1, "ssm:GetParameter": 1,
		"eks:DescribeCluster": 1, "sts:GetCallerIdentity": 1, "throttled": 0, "total": 7,
	}
	got := getStats(t, e.URL)
	if !mapsEqual(got, want) {
		t.Errorf("GET /_emulator/stats = %v, want %v", got, want)
	}
	if !mapsEqual(e.Srv.Stats(), want) {
		t.Errorf("Stats() = %v, want %v", e.Srv.Stats(), want)
	}

	resp, err := http.Post(e.URL+"/_emulator/reset", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Errorf("reset: HTTP %d", resp.StatusCode)
	}
	if got := getStats(t, e.URL); !mapsEqual(got, map[string]int{"throttled": 0, "total": 0}) {
		t.Errorf("after reset: %v", got)
	}
	if resp, err := http.Get(e.URL + "/_emulator/reset"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET reset: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

func getStats(t *testing.T, base string) map[string]int {
	t.Helper()
	resp, err := http.Get(base + "/_emulator/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]int
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func TestConcurrentRequests(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{ThrottleRate: 0.2, Latency: time.Millisecond}, fastRetries)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if _, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"amazon"}}); err != nil {
					errs <- err
				}
				if _, err := e.SSM.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{al2023Recommended}}); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			e.Srv.Stats()
			if resp, err := http.Get(e.URL + "/_emulator/stats"); err == nil {
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := e.Srv.Stats()
	if st["total"] != 160+st["throttled"] {
		t.Errorf("stats %v", st)
	}
}

// TestUnsignedRouting: requests without SigV4 still reach the right service.
func TestUnsignedRouting(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	post := func(form url.Values, header map[string]string, body string) (int, string) {
		t.Helper()
		var rd io.Reader = strings.NewReader(form.Encode())
		ct := "application/x-www-form-urlencoded"
		if body != "" {
			rd, ct = strings.NewReader(body), "application/x-amz-json-1.1"
		}
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/", rd)
		req.Header.Set("Content-Type", ct)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(url.Values{"Action": {"DescribeImages"}, "Version": {"2016-11-15"}, "ImageId.1": {awsemu.CustomArm64ID}}, nil, ""); code != 200 ||
		!strings.Contains(body, `<DescribeImagesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">`) ||
		!strings.Contains(body, "<imageId>"+awsemu.CustomArm64ID+"</imageId>") {
		t.Errorf("EC2: %d %s", code, body)
	}
	if code, body := post(url.Values{"Action": {"GetCallerIdentity"}, "Version": {"2011-06-15"}}, nil, ""); code != 200 ||
		!strings.Contains(body, "<Account>123456789012</Account>") {
		t.Errorf("STS: %d %s", code, body)
	}
	if code, body := post(nil, map[string]string{"X-Amz-Target": "AmazonSSM.GetParameter"}, `{"Name":"`+awsemu.ParamCustomX86+`"}`); code != 200 ||
		!strings.Contains(body, awsemu.CustomAvailableOldID) {
		t.Errorf("SSM: %d %s", code, body)
	}
	if code, body := post(nil, map[string]string{"X-Amz-Target": "AmazonSSM.GetParameter"}, `{"Name":"/nope"}`); code != 400 ||
		!strings.Contains(body, `"__type":"ParameterNotFound"`) {
		t.Errorf("SSM not found: %d %s", code, body)
	}
	if code, body := post(url.Values{"Action": {"RunInstances"}, "Version": {"2016-11-15"}}, nil, ""); code != 400 ||
		!strings.Contains(body, "<Code>InvalidAction</Code>") {
		t.Errorf("unknown EC2 action: %d %s", code, body)
	}
	resp, err := http.Get(e.URL + "/clusters/demo")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"cluster":{`) || !strings.Contains(string(b), `"serviceIpv4Cidr":"172.20.0.0/16"`) {
		t.Errorf("EKS: %d %s", resp.StatusCode, b)
	}
	resp, err = http.Get(e.URL + "/clusters/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("X-Amzn-ErrorType") != "ResourceNotFoundException" {
		t.Errorf("EKS missing: %d %v", resp.StatusCode, resp.Header)
	}
}
