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
