package provider

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Failures that are not the user's configuration of a class or pool: AWS
// refuses the provider's configuration, denies a read, or does not answer.
// Each is about the whole plan, so each is reported once per plan (per
// provider configuration: one provider process answers all its resources),
// not once per resource that ran into it.

var (
	ruleAWSConfig = rules.Register(rules.Rule{
		ID: "aws-config-failed", Severity: rules.Error, Category: categoryProvider,
		Title: "AWS cannot be used with the provider's configuration",
		Behaviour: "The provider loads the AWS configuration as the AWS CLI does (environment, shared files, `profile`, " +
			"`assume_role`). A profile that does not exist, no region, no credentials, a role that cannot be assumed, or " +
			"credentials AWS rejects stop every read, so the plan fails once, at the provider block, with the setting to fix. " +
			"When the provider configuration is known at plan, the credentials are resolved (and the role assumed) when the " +
			"provider is configured; credentials that resolve but that AWS rejects show at the first read, also once.",
		Source: "aws-sdk-go-v2 config.LoadDefaultConfig and credentials/stscreds; STS AssumeRole (AccessDenied when the role's " +
			"trust policy does not trust the caller)",
		Bad: "provider \"karpenter\" {\n  region = \"us-east-1\"\n  assume_role {\n" +
			"    role_arn = \"arn:aws:iam::123456789012:role/karpenter-plan\" # its trust policy does not trust the caller\n  }\n}\n",
		Good: "provider \"karpenter\" {\n  region = \"us-east-1\"\n  assume_role {\n" +
			"    role_arn = \"arn:aws:iam::123456789012:role/KarpenterNodeRole-demo\" # trusts the caller\n  }\n}\n",
	})
	ruleAWSDenied = rules.Register(rules.Rule{
		ID: "aws-permission-denied", Severity: rules.Error, Category: categoryProvider,
		Title: "AWS denied a read the plan cannot do without",
		Behaviour: "Rendering needs ec2:DescribeImages and ssm:GetParameters (the images Karpenter would pick), " +
			"ec2:DescribeInstanceTypes (the types a pool admits) and, when the cluster facts are not in the provider's " +
			"cluster block, eks:DescribeCluster. Without one of them there is nothing to render, so a denial is an error " +
			"naming the IAM action to grant (the readiness reads are warnings instead: readiness-read-denied).",
		Source: "IAM policy evaluation (AccessDenied, EC2 UnauthorizedOperation); the provider's IAM policy in the index page",
		Bad: "provider \"karpenter\" {\n  region = \"us-east-1\"\n  cluster {\n    name = \"demo\" # the planning role may not call eks:DescribeCluster\n" +
			"  }\n}\n",
		Good: "provider \"karpenter\" {\n  region = \"us-east-1\"\n  cluster {\n    name               = \"demo\"\n" +
			"    kubernetes_version = \"1.32\" # no eks:DescribeCluster needed for aliases\n  }\n}\n",
	})
	ruleAWSUnreachable = rules.Register(rules.Rule{
		ID: "aws-endpoint-unreachable", Severity: rules.Error, Category: categoryProvider,
		Title: "an AWS endpoint did not answer",
		Behaviour: fmt.Sprintf("Each request waits at most %s for a connection and %s for the response; an endpoint that "+
			"refuses, cannot be resolved, drops the packets or accepts and stays silent fails the plan within about %s, "+
			"naming the service and the endpoint, instead of hanging while the retries run. It is not retried (throttling "+
			"still is) and it is remembered: every later request to that endpoint in the plan fails at once, and the plan "+
			"reports it once.", awsclient.ConnectTimeout, awsclient.ResponseTimeout, awsclient.ResponseTimeout),
		Source: "aws-sdk-go-v2 aws/transport/http (dial and response-header timeouts), aws/retry",
		Bad:    "provider \"karpenter\" {\n  region = \"us-east-1\"\n  endpoints {\n    ec2 = \"http://127.0.0.1:4566\" # nothing answers here\n  }\n}\n",
		Good:   "provider \"karpenter\" {\n  region = \"us-east-1\"\n  endpoints {\n    ec2 = \"http://127.0.0.1:4566\" # awsemu -listen 127.0.0.1:4566\n  }\n}\n",
	})
)

// onceRules are reported once per plan: their detail's first line says
// everything that makes two of them different (the setting, the endpoint,
// the permission), so the copies other resources run into are dropped.
var onceRules = map[string]bool{ruleAWSConfig.ID: true, ruleAWSDenied.ID: true, ruleAWSUnreachable.ID: true,
	readiness.RuleReadDenied.ID: true}

// reportedOnce holds what a provider configuration has reported.
type reportedOnce struct {
	mu   sync.Mutex
	seen map[string]bool
}

// claim reports whether key is new, and records it.
func (r *reportedOnce) claim(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[key] {
		return false
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[key] = true
	return true
}

// oncePerPlan drops the diagnostics of onceRules that another resource of
// the plan already reported. A resource whose error is dropped plans its
// computed values unknown; the plan fails on the one error anyway. A data
// source must keep its errors (its dependents would read nulls), so with
// keepErrors they only mark what they reported. The one that is kept names
// no object (aboutObject may have added one): it is about the plan.
func (d *ProviderData) oncePerPlan(diags diag.Diagnostics, keepErrors bool) diag.Diagnostics {
	if d == nil || d.reported == nil || len(diags) == 0 {
		return diags
	}
	out := make(diag.Diagnostics, 0, len(diags))
	for _, dg := range diags {
		id, object, title, ok := rules.ParseSummary(dg.Summary())
		if !ok || !onceRules[id] {
			out = append(out, dg)
			continue
		}
		first, _, _ := strings.Cut(dg.Detail(), "\n")
		isNew := d.reported.claim(fmt.Sprintf("%d|%s|%s", dg.Severity(), id, first))
		if keep := isNew || keepErrors && dg.Severity() == diag.SeverityError; !keep {
			continue
		}
		if object != "" {
			dg = withSummary(dg, id+": "+title)
		}
		out = append(out, dg)
	}
	return out
}

// withSummary is dg with another summary, its severity and path kept.
func withSummary(dg diag.Diagnostic, summary string) diag.Diagnostic {
	wp, hasPath := dg.(diag.DiagnosticWithPath)
	switch {
	case dg.Severity() == diag.SeverityError && hasPath:
		return diag.NewAttributeErrorDiagnostic(wp.Path(), summary, dg.Detail())
	case dg.Severity() == diag.SeverityError:
		return diag.NewErrorDiagnostic(summary, dg.Detail())
	case hasPath:
		return diag.NewAttributeWarningDiagnostic(wp.Path(), summary, dg.Detail())
	default:
		return diag.NewWarningDiagnostic(summary, dg.Detail())
	}
}

// addAWSFailure reports an AWS failure at p with the rule that fits it;
// hint is added where it helps (the general failures and the denied reads,
// never the provider-wide ones, which have nothing to do with the resource).
func addAWSFailure(diags *diag.Diagnostics, p path.Path, err error, hint string) {
	if hint != "" {
		hint = "\n\n" + hint
	}
	var ee *awsclient.EndpointError
	var ce *awsclient.ConfigError
	code, rejected := awsclient.CredentialsRejected(err)
	action, denied := awsclient.Denied(err)
	switch {
	case errors.As(err, &ee):
		addRuleDiag(diags, path.Empty(), ruleAWSUnreachable, endpointDetail(ee))
	case errors.As(err, &ce):
		addRuleDiag(diags, path.Empty(), ruleAWSConfig, configDetail(ce, action))
	case rejected:
		addRuleDiag(diags, path.Empty(), ruleAWSConfig, fmt.Sprintf("AWS rejected the provider's credentials (%s).\n\n%v\n\n"+
			"The keys are unknown to AWS, malformed or expired. Check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, "+
			"`profile` (renew an SSO or session login), or `assume_role`.", code, err))
	case denied:
		addRuleDiag(diags, p, ruleAWSDenied, fmt.Sprintf("AWS denied %s to the identity that plans.\n\n%v\n\n"+
			"Grant %s to the identity the provider uses (the provider's index page lists the IAM policy, permission by check).%s",
			action, err, action, hint))
	default:
		addRuleDiag(diags, p, ruleAWSRequestFailed, awsErrorDetail(err)+hint)
	}
}

// awsFailureIsProviderWide reports whether err is about the provider's
// configuration or an endpoint, not the resource that ran into it.
func awsFailureIsProviderWide(err error) bool { return awsclient.ProviderWide(err) }

func endpointDetail(e *awsclient.EndpointError) string {
	// The request that found the endpoint silent: the first line is the
	// same for every request the plan then did not send, so the error is
	// reported once.
	e = e.First()
	return fmt.Sprintf("The %s endpoint %s %s (%s).\n\n%s\n\nNo request to that endpoint is retried or waited for again in "+
		"this plan. Check the provider's `endpoints` block and AWS_ENDPOINT_URL_* (an emulator that is not running, a VPC "+
		"endpoint or proxy that does not route), or the network between Terraform and AWS.",
		e.Service, e.Endpoint, e.Reason, e.Permission(), e.Cause)
}

func configDetail(e *awsclient.ConfigError, deniedAction string) string {
	var first, fix string
	switch e.Setting {
	case "assume_role":
		first = "The provider's assume_role could not be used: the role was not assumed."
		if deniedAction == "sts:AssumeRole" {
			first = "The provider's assume_role could not be used: AWS denied sts:AssumeRole."
		}
		fix = "The identity the provider starts from (environment keys, `profile`, or the instance's role) must be allowed " +
			"sts:AssumeRole on assume_role.role_arn, and the role's trust policy must trust that identity (and require " +
			"assume_role.external_id only if it is set)."
	case "credentials":
		first = "No usable AWS credentials were found."
		fix = "Set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or `profile`/`assume_role` in the provider block. " +
			"For an emulator, set the `endpoints` block and dummy keys."
	case "region":
		first = "No AWS region is configured."
	default:
		first = fmt.Sprintf("The provider's %s could not be used.", e.Setting)
	}
	out := first + "\n\n" + e.Error()
	if fix != "" {
		out += "\n\n" + fix
	}
	return out
}

// readDenied is the finding of a denied readiness read: a warning, an error
// with strict_readiness.
func (d *ProviderData) readDenied(action string, err error) rules.Finding {
	return d.strictDenied(readiness.ReadDenied(action, err))
}

func (d *ProviderData) strictDenied(f rules.Finding) rules.Finding {
	f.Detail += " With strict_readiness = true this is an error."
	if d.StrictReadiness {
		f.Severity = rules.Error
		f.Fix = nil // strict: the read is required, not to be acknowledged
	}
	return f
}

// strictReadiness applies strict_readiness to the denied readiness reads
// among a check sequence's findings (checks.NodePool's offerings read).
func (d *ProviderData) strictReadiness(fs rules.Findings) rules.Findings {
	out := make(rules.Findings, len(fs))
	for i, f := range fs {
		if f.Rule == readiness.RuleReadDenied {
			f = d.strictDenied(f)
		}
		out[i] = f
	}
	return out
}

// The rules the checks of this file emit.
var (
	ruleAWSRequestFailed = rules.Register(rules.Rule{
		ID: "aws-request-failed", Severity: rules.Error, Category: categoryProvider,
		Title:     "an AWS request the check needs failed",
		Behaviour: "The plan-time checks read what Karpenter reads (EC2 images and instance types, SSM parameters, EKS cluster facts). When a request fails for a reason of its own (throttled past max_retries, a server error, an answer the SDK cannot read) the provider cannot predict what Karpenter would do, and says so rather than guessing. A configuration AWS refuses, a denied permission and an endpoint that does not answer have rules of their own (aws-config-failed, aws-permission-denied, readiness-read-denied, aws-endpoint-unreachable).",
		Source:    "aws-sdk-go-v2 (the API error is quoted); the provider's IAM policy in the index page",
		Bad:       "provider \"karpenter\" {\n  region      = \"us-west-2\"\n  max_retries = 0 # a throttled read fails the plan\n}\n",
		Good:      "provider \"karpenter\" {\n  region     = \"us-west-2\"\n  retry_mode = \"adaptive\" # and the default max_retries, 25\n}\n",
	})
)
