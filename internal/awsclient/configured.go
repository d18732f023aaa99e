package awsclient

import "os"

// configuredEnv are the environment variables that, set, mean the user
// points the SDK at AWS (or an emulator) without the provider block.
var configuredEnv = []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2"}

// Configured reports whether the user asked for AWS: a region, profile,
// assume_role or endpoint in the provider block, a setting that is not known
// yet (it will be), or AWS_REGION, AWS_DEFAULT_REGION, AWS_PROFILE,
// AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_EC2 in the environment. Checks that
// can run on embedded facts use them when this is false, so plans without
// any AWS setup never try IMDS or fail on missing credentials. Shared config
// files alone do not count: ~/.aws/config exists on many machines that are
// not meant to reach AWS from Terraform.
func (c *Clients) Configured() bool {
	cfg := c.cfg
	e := cfg.Endpoints
	if cfg.Region != "" || cfg.Profile != "" || len(cfg.Unknown) > 0 ||
		(cfg.AssumeRole != nil && cfg.AssumeRole.RoleARN != "") ||
		e.EC2 != "" || e.SSM != "" || e.EKS != "" || e.STS != "" || e.IAM != "" || e.Pricing != "" {
		return true
	}
	for _, k := range configuredEnv {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}
