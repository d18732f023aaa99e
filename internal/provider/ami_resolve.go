package provider

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// errDeferred means an input needed for resolution is not known yet; a
// resource leaves its computed values unknown and checks again at apply.
var errDeferred = errors.New("deferred until the value is known")

// resolution is a finished AMI resolution and what it was resolved for.
type resolution struct {
	result     ami.Result
	kubernetes versions.Kubernetes
	// kubernetesSet is false when no Kubernetes version was needed (no
	// alias) and none was given.
	kubernetesSet bool
}

// resolveAMIs resolves terms with the provider's shared cache. k8s is the
// object's own kubernetes_version (null to use the provider's cluster). It
// returns errDeferred when something needed is unknown; other failures are
// added to diags (Kubernetes version problems at k8sPath, empty for the
// resources, which take the version from the provider).
func resolveAMIs(ctx context.Context, pd *ProviderData, terms []ami.Term, k8s types.String, k8sPath path.Path, diags *diag.Diagnostics) (resolution, error) {
	var out resolution
	if k8s.IsUnknown() {
		return out, errDeferred
	}
	version := k8s.ValueString()
	_, hasAlias := ami.AliasTerm(terms)
	if version == "" && hasAlias {
		facts, err := pd.ClusterFacts(ctx, []string{cluster.FieldKubernetesVersion}, "resolving an AMI alias")
		switch {
		case errors.Is(err, cluster.ErrUnknown):
			return out, errDeferred
		case err != nil:
			const why = "Alias SSM parameters are per Kubernetes minor, so the alias cannot be resolved without it"
			var missing *cluster.MissingError
			if errors.As(err, &missing) {
				where := "set the provider's `cluster { kubernetes_version = \"1.32\" }` (or `cluster { name = ... }` to read it with eks:DescribeCluster)"
				if len(k8sPath.Steps()) > 0 {
					where = "set `kubernetes_version` on this data source, or in the provider's cluster block"
				}
				addRuleDiag(diags, k8sPath, ruleKubernetesVersionNeeded, err.Error()+". "+why+"; "+where+".")
				return out, err
			}
			// AWS failed (throttling, credentials, a cluster that does
			// not exist): say so, not that the version is missing.
			addAWSFailure(diags, k8sPath, err, why+"; `kubernetes_version` here or in the provider's cluster block avoids eks:DescribeCluster.")
			return out, err
		}
		version = facts.KubernetesVersion
	}
	if version != "" {
		v, err := versions.ParseKubernetes(version)
		if err != nil {
			addRuleDiag(diags, k8sPath, ruleKubernetesVersionInvalid, err.Error())
			return out, err
		}
		out.kubernetes, out.kubernetesSet = v, true
		appendFindings(diags, k8sPath, ami.KubernetesUnsupported(v, rules.Path{}))
	}
	r := &ami.Resolver{Source: pd.AWS}
	res, err := r.Resolve(ctx, ami.Request{Terms: terms, Kubernetes: out.kubernetes, Karpenter: pd.Karpenter})
	if err != nil {
		if errors.Is(err, awsclient.ErrUnknownConfig) {
			return out, errDeferred
		}
		addAWSFailure(diags, path.Root("ami_selector_terms"), err, "")
		return out, err
	}
	out.result = res
	return out, nil
}

// awsErrorDetail explains an AWS failure with the fix for the usual causes.
func awsErrorDetail(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "failed to retrieve credentials") || strings.Contains(msg, "no EC2 IMDS role found"):
		return msg + "\n\nNo AWS credentials were found. Set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or `profile`/`assume_role` in the provider block. For an emulator, set the `endpoints` block and dummy keys."
	case retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err).Bool() || strings.Contains(msg, "retry quota exceeded"):
		return msg + "\n\nAWS kept throttling the request after the configured retries. Raise `max_retries`, use `retry_mode = \"adaptive\"`, or plan with lower -parallelism."
	}
	return msg
}

// The rules the checks of this file emit.
var (
	ruleKubernetesVersionNeeded = rules.Register(rules.Rule{
		ID: "kubernetes-version-needed", Severity: rules.Error, Category: categoryProvider,
		Title:     "an alias needs the cluster's Kubernetes version, and none is known",
		Behaviour: "Karpenter resolves an alias through SSM parameters that are published per Kubernetes minor (/aws/service/eks/optimized-ami/<version>/...); it reads the version from the cluster. The provider has no cluster connection, so it takes the version from the data source's kubernetes_version, the provider's cluster block, or eks:DescribeCluster of cluster.name.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily (SSM alias paths); pkg/providers/version",
		Bad:       "data \"karpenter_amis\" \"default\" {\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = \"1.32\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
	ruleKubernetesVersionInvalid = rules.Register(rules.Rule{
		ID: "kubernetes-version-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "kubernetes_version is not a Kubernetes minor such as 1.32",
		Behaviour: "The SSM parameter paths Karpenter reads contain the minor version only (`1.32`); a patch version (`1.32.3`, `v1.32.3`) is read as its minor, and other text matches no parameter.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/al2023.go DescribeImageQuery (SSM path per Kubernetes minor)",
		Bad:       "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = \"latest\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = \"1.32\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
)
