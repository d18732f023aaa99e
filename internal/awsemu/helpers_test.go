package awsemu_test

import (
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// testNow pins the clock: the self-owned deprecated image is deprecated, the
// public images are not.
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// env is an emulator behind an httptest server plus real SDK clients
// pointed at it through BaseEndpoint.
type env struct {
	URL string
	Srv *awsemu.Server
	Cfg aws.Config
	EC2 *ec2.Client
	SSM *ssm.Client
	EKS *eks.Client
	STS *sts.Client
	IAM *iam.Client
}

// newEnv starts an emulator on f (default fixtures when nil). Clients make a
// single attempt unless the caller passes a retryer, and use the wrapped HTTP
// client so request counts are exact (see awsemutest.AvoidSDKBodyRace).
func newEnv(t testing.TB, f *awsemu.Fixtures, opts awsemu.Options, retryer func() aws.Retryer) *env {
	t.Helper()
	if f == nil {
		f = defaultFixtures(t)
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	srv := awsemu.New(f, opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	if retryer == nil {
		retryer = func() aws.Retryer { return aws.NopRetryer{} }
	}
	cfg := aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(hs.URL),
		Retryer:      retryer,
		APIOptions:   []func(*middleware.Stack) error{awsemutest.AvoidSDKBodyRace},
	}
	return &env{
		URL: hs.URL, Srv: srv, Cfg: cfg,
		EC2: ec2.NewFromConfig(cfg), SSM: ssm.NewFromConfig(cfg),
		EKS: eks.NewFromConfig(cfg), STS: sts.NewFromConfig(cfg), IAM: iam.NewFromConfig(cfg),
	}
}

func defaultFixtures(t testing.TB) *awsemu.Fixtures {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// apiCode returns the smithy error code of err, failing the test when err
// is not an API error.
func apiCode(t testing.TB, err error) string {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want an API error, got %v", err)
	}
	return ae.ErrorCode()
}

func names(imgs []ec2types.Image) []string {
	out := make([]string, 0, len(imgs))
	for _, i := range imgs {
		out = append(out, aws.ToString(i.Name))
	}
	slices.Sort(out)
	return out
}

func sorted(s ...string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}

func ssmParam(name, value string) ssmtypes.Parameter {
	return ssmtypes.Parameter{Name: aws.String(name), Value: aws.String(value)}
}

func ssmGet(name string) *ssm.GetParameterInput {
	return &ssm.GetParameterInput{Name: aws.String(name)}
}
