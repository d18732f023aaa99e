// Package awsclient turns the provider's AWS settings into SDK clients and
// answers the few AWS questions the provider asks (DescribeImages,
// GetParameters, DescribeInstanceTypes, DescribeCluster, and for readiness
// DescribeSubnets, DescribeSecurityGroups, DescribeCapacityReservations,
// DescribeInstanceTypeOfferings, GetRole, GetInstanceProfile) through a
// per-process cache: one call per distinct query, concurrent callers of the
// same query share one in-flight call.
package awsclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/middleware"
)

// DefaultMaxRetries matches the AWS provider's default.
const DefaultMaxRetries = 25

// MaxBackoff caps the delay before each retry. The SDK's standard retryer
// waits up to 20 s (a random 0-2 s, 0-4 s, 0-8 s, 0-16 s, then 20 s for
// every later attempt), so a request AWS keeps throttling takes about
// 7 minutes to fail with the default 25 retries, and Terraform shows a plan
// that seems to hang. The provider's calls are a handful of read-only
// Describe/Get requests, whose token buckets refill every second: with
// 5 s the same 25 retries end after at most about 2 minutes (0-2 s, 0-4 s,
// then 5 s each), and a throttling error is cached for the rest of the run,
// so no other resource waits for it again.
const MaxBackoff = 5 * time.Second

// Config is the provider's AWS configuration. Zero values mean "not set":
// the SDK's own sources (environment, shared files, IMDS) fill them.
type Config struct {
	Region                 string
	Profile                string
	SharedConfigFiles      []string
	SharedCredentialsFiles []string
	AssumeRole             *AssumeRole
	Endpoints              Endpoints
	// MaxRetries is the number of retries after the first attempt; a
	// negative value means DefaultMaxRetries.
	MaxRetries int
	// RetryMode is "standard" or "adaptive"; empty leaves the SDK default.
	RetryMode string
	// Unknown lists settings whose value was unknown when the provider was
	// configured (e.g. a region taken from a resource created in the same
	// run). Any call then fails with ErrUnknownConfig, which callers treat
	// as "defer this check", never as a failure.
	Unknown []string
	// Timeouts bound each HTTP attempt (zero: ConnectTimeout and
	// ResponseTimeout).
	Timeouts Timeouts
}

// AssumeRole mirrors the provider's assume_role block.
type AssumeRole struct {
	RoleARN     string
	SessionName string
	ExternalID  string
	Duration    time.Duration
}

// Endpoints overrides service endpoints (emulators, VPC endpoints). The SDK
// already honours AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE>; a value
// here wins over them.
type Endpoints struct {
	EC2, SSM, EKS, STS, IAM string
	// Pricing is the Pricing API's (pricing:GetProducts, for the
	// scheduling decision's prices).
	Pricing string
}

// ErrUnknownConfig is returned when the provider configuration was not known
// at plan time; callers defer their checks to apply.
var ErrUnknownConfig = errors.New("the provider's AWS configuration is not known yet")

// Clients builds SDK clients lazily: nothing is loaded, and no credential is
// needed, until the first AWS call or Verify (so `terraform validate`, which
// never configures the provider, never needs AWS).
type Clients struct {
	cfg Config

	once sync.Once
	aws  aws.Config
	err  error
}

// NewClients records the configuration; it performs no I/O.
func NewClients(cfg Config) *Clients {
	return &Clients{cfg: cfg}
}

// Config returns the configuration the clients were made from.
func (c *Clients) Config() Config { return c.cfg }

func (c *Clients) load(ctx context.Context) (aws.Config, error) {
	if len(c.cfg.Unknown) > 0 {
		return aws.Config{}, fmt.Errorf("%w (unknown: %v)", ErrUnknownConfig, c.cfg.Unknown)
	}
	c.once.Do(func() { c.aws, c.err = c.loadOnce(ctx) })
	return c.aws, c.err
}

func (c *Clients) loadOnce(ctx context.Context) (aws.Config, error) {
	// The SDK config is shared by every later call of the process, so it must
	// not inherit the first caller's cancellation.
	ctx = context.WithoutCancel(ctx)
	var opts []func(*config.LoadOptions) error
	if c.cfg.Region != "" {
		opts = append(opts, config.WithRegion(c.cfg.Region))
	}
	if c.cfg.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.cfg.Profile))
	}
	if len(c.cfg.SharedConfigFiles) > 0 {
		opts = append(opts, config.WithSharedConfigFiles(c.cfg.SharedConfigFiles))
	}
	if len(c.cfg.SharedCredentialsFiles) > 0 {
		opts = append(opts, config.WithSharedCredentialsFiles(c.cfg.SharedCredentialsFiles))
	}
	retries := c.cfg.MaxRetries
	if retries < 0 {
		retries = DefaultMaxRetries
	}
	timeouts := c.cfg.Timeouts.withDefaults()
	opts = append(opts, config.WithRetryMaxAttempts(retries+1), config.WithAPIOptions([]func(*middleware.Stack) error{AvoidBodyRace}),
		config.WithHTTPClient(httpClient(timeouts)))
	switch c.cfg.RetryMode {
	case "":
	case string(aws.RetryModeStandard), string(aws.RetryModeAdaptive):
		opts = append(opts, config.WithRetryMode(aws.RetryMode(c.cfg.RetryMode)))
	default:
		return aws.Config{}, &ConfigError{Setting: "retry_mode", Err: fmt.Errorf("retry_mode %q is not supported; use \"standard\" or \"adaptive\"", c.cfg.RetryMode)}
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, &ConfigError{Setting: "profile", Err: fmt.Errorf("loading the AWS configuration: %w; check `profile`, `shared_config_files` and `shared_credentials_files` in the provider block, or the AWS_PROFILE/AWS_CONFIG_FILE environment variables", err)}
	}
	if cfg.Region == "" {
		return aws.Config{}, &ConfigError{Setting: "region", Err: errors.New("no AWS region is configured: set `region` in the provider \"karpenter\" block, or the AWS_REGION environment variable")}
	}
	// Every client, the STS one that assumes the role included, shares
	// one guard: an endpoint found silent is not waited for twice.
	cfg.HTTPClient = &endpointGuard{next: cfg.HTTPClient, timeouts: timeouts}
	base := cfg.Retryer
	if base == nil {
		base = func() aws.Retryer { return retry.NewStandard() }
	}
	cfg.Retryer = func() aws.Retryer {
		r := retry.AddWithMaxBackoffDelay(base(), MaxBackoff)
		if v2, ok := r.(aws.RetryerV2); ok {
			return noRetryUnreachable{v2}
		}
		return r
	}
	setting := "credentials"
	if ar := c.cfg.AssumeRole; ar != nil && ar.RoleARN != "" {
		setting = "assume_role"
		stsClient := sts.NewFromConfig(cfg, c.stsOptions)
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsClient, ar.RoleARN, func(o *stscreds.AssumeRoleOptions) {
			if ar.SessionName != "" {
				o.RoleSessionName = ar.SessionName
			}
			if ar.ExternalID != "" {
				o.ExternalID = aws.String(ar.ExternalID)
			}
			if ar.Duration > 0 {
				o.Duration = ar.Duration
			}
		}))
	}
	if cfg.Credentials != nil {
		cfg.Credentials = checkedCredentials{CredentialsProvider: cfg.Credentials, setting: setting}
	}
	return cfg, nil
}

func (c *Clients) stsOptions(o *sts.Options) {
	if c.cfg.Endpoints.STS != "" {
		o.BaseEndpoint = aws.String(c.cfg.Endpoints.STS)
	}
}

// The SDK clients are handed out by unexported methods and never converted to
// an interface (no SDK paginators or waiters, which take one): the provider
// links k8s.io/apimachinery and text/template, whose reflection on method
// names makes the linker keep every exported method of every type stored in
// an interface. A *ec2.Client reachable that way keeps all ~700 EC2
// operations and their serializers: 89 MB instead of 56 MB for the stripped
// provider binary. TestProviderBinaryLinksOnlyTheOperationsItCalls guards it.

// ec2Client returns an EC2 client.
func (c *Clients) ec2Client(ctx context.Context) (*ec2.Client, error) {
	cfg, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	return ec2.NewFromConfig(cfg, func(o *ec2.Options) {
		if c.cfg.Endpoints.EC2 != "" {
			o.BaseEndpoint = aws.String(c.cfg.Endpoints.EC2)
		}
	}), nil
}

// ssmClient returns an SSM client.
func (c *Clients) ssmClient(ctx context.Context) (*ssm.Client, error) {
	cfg, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	return ssm.NewFromConfig(cfg, func(o *ssm.Options) {
		if c.cfg.Endpoints.SSM != "" {
			o.BaseEndpoint = aws.String(c.cfg.Endpoints.SSM)
		}
	}), nil
}

// eksClient returns an EKS client.
func (c *Clients) eksClient(ctx context.Context) (*eks.Client, error) {
	cfg, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	return eks.NewFromConfig(cfg, func(o *eks.Options) {
		if c.cfg.Endpoints.EKS != "" {
			o.BaseEndpoint = aws.String(c.cfg.Endpoints.EKS)
		}
	}), nil
}

// iamClient returns an IAM client. IAM is global: the SDK resolves its one
// endpoint (and signing region us-east-1) from any region of the partition;
// an `iam` endpoint override or AWS_ENDPOINT_URL_IAM replaces it.
func (c *Clients) iamClient(ctx context.Context) (*iam.Client, error) {
	cfg, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	return iam.NewFromConfig(cfg, func(o *iam.Options) {
		if c.cfg.Endpoints.IAM != "" {
			o.BaseEndpoint = aws.String(c.cfg.Endpoints.IAM)
		}
	}), nil
}
