// Package awsemutest starts the AWS emulator for Go tests of other packages.
//
//	url, emu := awsemutest.Start(t)   // default fixtures, closed at the end of the test
//	awsemutest.Setenv(t, url)         // AWS_ENDPOINT_URL_EC2, ... for config.LoadDefaultConfig
//	cfg := awsemutest.Config(url)     // or an aws.Config that ignores the environment
//	_ = emu.Stats()["ec2:DescribeImages"]
//
// Read AvoidSDKBodyRace before asserting exact request counts.
package awsemutest

import (
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/middleware"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// Start serves the default fixtures on a loopback httptest server that is
// closed when the test ends. At most one Options may be given.
func Start(t testing.TB, opts ...awsemu.Options) (url string, srv *awsemu.Server) {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatalf("awsemutest: %v", err)
	}
	return StartWith(t, f, opts...)
}

// StartWith is Start with the caller's fixtures, e.g. DefaultFixtures() plus
// AddImages(...).
func StartWith(t testing.TB, f *awsemu.Fixtures, opts ...awsemu.Options) (url string, srv *awsemu.Server) {
	t.Helper()
	var o awsemu.Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		t.Fatalf("awsemutest: at most one Options, got %d", len(opts))
	}
	srv = awsemu.New(f, o)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL, srv
}

// Env returns the environment that points the SDK's default configuration
// (config.LoadDefaultConfig) at the emulator with static test credentials.
func Env(url string) map[string]string {
	return map[string]string{
		"AWS_ENDPOINT_URL_EC2":      url,
		"AWS_ENDPOINT_URL_SSM":      url,
		"AWS_ENDPOINT_URL_EKS":      url,
		"AWS_ENDPOINT_URL_STS":      url,
		"AWS_ENDPOINT_URL_IAM":      url,
		"AWS_ACCESS_KEY_ID":         "test",
		"AWS_SECRET_ACCESS_KEY":     "test",
		"AWS_REGION":                "us-east-1",
		"AWS_EC2_METADATA_DISABLED": "true",
	}
}

// Setenv sets Env(url) for the duration of the test (t.Setenv: not usable
// in parallel tests).
func Setenv(t testing.TB, url string) {
	t.Helper()
	for k, v := range Env(url) {
		t.Setenv(k, v)
	}
}

// Config returns an aws.Config for the emulator that ignores the environment
// and shared config files: us-east-1, static credentials test/test, every
// service's endpoint set to url, and AvoidSDKBodyRace. Set Retryer or pass client options for retry behaviour;
// the SDK default (standard, 3 attempts) applies otherwise.
func Config(url string) aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(url),
		APIOptions:   []func(*middleware.Stack) error{AvoidSDKBodyRace},
	}
}

// AvoidSDKBodyRace is awsclient.AvoidBodyRace, for tests that build their
// own SDK clients: without it a fraction of calls to a loopback server fail
// with "use of closed network connection" and skew Server.Stats counts.
var AvoidSDKBodyRace = awsclient.AvoidBodyRace
