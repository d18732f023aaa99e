package nodeclass

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
)

// discoveryTag is the tag Karpenter's getting-started guide and the
// terraform-aws-eks module put on the cluster's subnets and security
// groups, with the cluster's name as its value.
const discoveryTag = "karpenter.sh/discovery"

// BootstrapClusterFindings is otherClusterFindings for a class whose
// family is resolved here: the check of hand-written manifests, which know
// the cluster only when karpenter-lint is given --cluster.
func BootstrapClusterFindings(c Class, kv versions.Karpenter, configured string) rules.Findings {
	if c.Unknown.Is(pathAMIFamily) || c.Unknown.Within(pathAMITerms) || c.Unknown.Within(pathSubnets) || c.Unknown.Within(pathSGs) {
		return nil
	}
	family, ok := ami.ResolvedFamily(c.Family, c.Terms, kv)
	if !ok {
		return nil
	}
	return otherClusterFindings(c, family, configured)
}

// otherClusterFindings reports the bootstrap.sh calls of a Custom class's
// userData that name a cluster other than the one the class is for and
// give neither --apiserver-endpoint nor --b64-cluster-ca: bootstrap.sh then
// asks eks:DescribeCluster for the named cluster at boot, so the node
// fails to bootstrap (no such cluster) or joins that other cluster, and
// the NodeClaim never registers here. configured is the provider's
// cluster name ("" when not known): a mismatch with it is an error; without
// it, a mismatch with the class's discovery tag is a warning (the tag is
// the cluster's name by convention only).
func otherClusterFindings(c Class, family amifamily.Family, configured string) rules.Findings {
	if family.Model().KarpenterBootstraps() || c.Spec.UserData == nil || c.Unknown.Is(pathUserData) {
		return nil
	}
	var fs rules.Findings
	for _, call := range lint.BootstrapCalls(*c.Spec.UserData) {
		if !call.ClusterKnown || (call.Endpoint && call.CA) {
			continue
		}
		where := ""
		if call.Where != "" {
			where = " (" + call.Where + ")"
		}
		const effect = "Without --apiserver-endpoint and --b64-cluster-ca bootstrap.sh looks the named cluster up with eks:DescribeCluster at boot: the bootstrap fails when no such cluster exists, or the node joins that other cluster; either way the NodeClaim never registers here and Karpenter deletes it after 15 minutes."
		switch {
		case configured != "" && call.Cluster != configured:
			fs = append(fs, rules.New(ruleOtherCluster, pathUserData,
				"Line %d%s calls bootstrap.sh %s, but this class is for cluster %q (the provider's cluster). %s Name %q, or pass --apiserver-endpoint and --b64-cluster-ca of the cluster meant.",
				call.Line, where, call.Cluster, configured, effect, configured))
		case configured == "":
			tag, ok := discoveredCluster(c)
			if !ok || tag == call.Cluster {
				continue
			}
			fs = append(fs, rules.New(ruleOtherCluster, pathUserData,
				"Line %d%s calls bootstrap.sh %s, but the class finds its subnets and security groups by %s: %s, the cluster's name by convention. %s If the cluster is %s, name it in the call (or pass --apiserver-endpoint and --b64-cluster-ca).",
				call.Line, where, call.Cluster, discoveryTag, tag, effect, tag).AsWarning())
		}
	}
	return fs
}

// discoveredCluster is the one value of the discovery tag across the
// class's subnet and security group selector terms.
func discoveredCluster(c Class) (string, bool) {
	seen := map[string]bool{}
	for _, t := range c.Spec.SubnetSelectorTerms {
		if v, ok := t.Tags[discoveryTag]; ok {
			seen[v] = true
		}
	}
	for _, t := range c.Spec.SecurityGroupSelectorTerms {
		if v, ok := t.Tags[discoveryTag]; ok {
			seen[v] = true
		}
	}
	if len(seen) != 1 {
		return "", false
	}
	for v := range seen {
		return v, v != "" && v != "*" && !strings.Contains(v, "*")
	}
	return "", false
}

// The rules the checks of this file emit.
var (
	ruleOtherCluster = rules.Register(rules.Rule{
		ID: "custom-bootstrap-other-cluster", Severity: rules.Error, Category: category,
		Title:     "Custom userData bootstraps a cluster other than the class's, with no endpoint and CA",
		Behaviour: "Karpenter passes Custom userData unchanged, so the cluster the node joins is the one its bootstrap.sh call names. Without `--apiserver-endpoint` and `--b64-cluster-ca` bootstrap.sh looks that cluster up with eks:DescribeCluster at boot: a name copied from an example (`bootstrap.sh my-cluster`) fails the bootstrap, another cluster's name joins the node there; the NodeClaim never registers and Karpenter deletes it after 15 minutes. An error against the provider's cluster (its `cluster` block, or `karpenter-lint --cluster`); without one, a warning when the name differs from the class's `karpenter.sh/discovery` selector tag, which names the cluster by convention only.",
		Source:    "awslabs/amazon-eks-ami templates/al2/runtime/bootstrap.sh (CLUSTER_NAME from the first argument; aws eks describe-cluster when the endpoint or CA is missing); aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       rules.Body(`ami_family = "Custom"`, `ami_selector_terms { id = "ami-0123456789abcdef0" }`, rules.Block("subnet_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), rules.Block("security_group_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), `user_data = "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"`),
		Good:      rules.Body(`ami_family = "Custom"`, `ami_selector_terms { id = "ami-0123456789abcdef0" }`, rules.Block("subnet_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), rules.Block("security_group_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), `user_data = "#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"`),
	})
)
