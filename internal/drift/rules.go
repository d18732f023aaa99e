package drift

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"

// Category is the docs-page section of this package's rules.
const Category = "Drift"

// RuleNodesWillDrift is the warning an update gets when it changes what
// Karpenter hashes, or the images it resolves, so that running nodes will be
// replaced.
var RuleNodesWillDrift = rules.Register(rules.Rule{
	ID: "nodes-will-drift", Severity: rules.Warning, Category: Category,
	Title: "this update replaces running nodes",
	Behaviour: "Karpenter stamps karpenter.k8s.aws/ec2nodeclass-hash and karpenter.sh/nodepool-hash on the class, the pool and every NodeClaim. " +
		"An update that changes a hashed field (everything in the EC2NodeClass spec but the selector terms and amiFamily, whose resolved family is hashed instead; " +
		"the NodePool's spec.template but its requirements; from Karpenter 1.12 the cluster CA bundle) makes every NodeClaim launched before it Drifted, " +
		"and so does a change of the images the class resolves (AMIDrift). Karpenter then replaces those nodes, a replacement first and a drain after, " +
		"at most as many at once as the pool's disruption budgets allow (10% by default); expireAfter replaces nodes regardless of budgets and " +
		"terminationGracePeriod bounds how long pods may block a drain. Weight, limits, disruption settings and the fields marked hash:\"ignore\" do not drift nodes. " +
		"The provider's drift_hash attributes equal the annotations Karpenter writes for the configured karpenter_version. " +
		"With a snapshot of the running cluster (the provider's cluster_state, karpenter-lint lint --cluster-state) the warning counts the " +
		"NodeClaims the configuration drifts and names their pools and reasons, their annotations and images being the \"before\"; it then also " +
		"fires for an object new to Terraform that differs from what its nodes were launched with.",
	Source: "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go EC2NodeClass.Hash, EC2NodeClassHashVersion; pkg/cloudprovider/drift.go areStaticFieldsDrifted, isAMIDrifted; " +
		"kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go NodePool.Hash, NodePoolHashVersion; pkg/controllers/disruption/drift.go; designs/drift-hash-versioning.md",
	Bad: classExample([]string{"# was al2023@v20251112: every node of the class is replaced", `alias = "al2023@v20251209"`}),
	Good: classExample([]string{`alias = "al2023@v20251209"`}, "# the rollout is paced by the pool's drift budget below", `acknowledged_warnings = ["nodes-will-drift"]`) + "\n\n" +
		rules.Block(`resource "karpenter_nodepool" "default"`,
			`name = "default"`, "node_class = karpenter_ec2nodeclass.default.node_class",
			rules.Block("disruption", `consolidate_after = "1m"`, rules.Block("budgets", `nodes = "1"`, `reasons = ["Drifted"]`))),
})

// classExample is an EC2NodeClass with one alias term (its lines) and extra
// arguments.
func classExample(alias []string, args ...string) string {
	tags := `tags = { "karpenter.sh/discovery" = "demo" }`
	items := append([]string{`name = "default"`, `role = "KarpenterNodeRole-demo"`}, args...)
	items = append(items, rules.Block("ami_selector_terms", alias...),
		rules.Block("subnet_selector_terms", tags), rules.Block("security_group_selector_terms", tags))
	return rules.Block(`resource "karpenter_ec2nodeclass" "default"`, items...)
}
