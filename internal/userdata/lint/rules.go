package lint

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

const category = "userData"

// classWith renders a docs example: a karpenter_ec2nodeclass with the
// given arguments and blocks (the other required arguments elided).
func classWith(items ...string) string {
	return rules.Block(`resource "karpenter_ec2nodeclass" "x"`, append([]string{"# name, role, selector terms ..."}, items...)...) + "\n"
}

// poolWith renders a karpenter_nodepool with the given arguments and
// blocks (the others elided).
func poolWith(items ...string) string {
	return rules.Block(`resource "karpenter_nodepool" "x"`, append([]string{"# ..."}, items...)...) + "\n"
}

// The ami_family argument of the examples' classes.
const (
	onAL2          = `ami_family = "AL2"`
	onAL2023       = `ami_family = "AL2023"`
	onBottlerocket = `ami_family = "Bottlerocket"`
	onCustom       = `ami_family = "Custom"`
	onWindows2022  = `ami_family = "Windows2022"`
)

// nodeClass renders a class with an ami_family argument and a heredoc
// user_data.
func nodeClass(family, userData string) string {
	return classWith(family, heredoc("user_data", userData))
}

// heredoc renders an argument whose value is a heredoc of text.
func heredoc(name, text string) string {
	var b strings.Builder
	b.WriteString(name + " = <<-EOT\n")
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l != "" {
			b.WriteString("  " + l)
		}
		b.WriteString("\n")
	}
	b.WriteString("EOT")
	return b.String()
}

// bootstrapClass renders a Custom class with a bootstrap block of the
// given arguments and blocks.
func bootstrapClass(items ...string) string {
	return classWith(onCustom, rules.Block("bootstrap", items...))
}

// The cluster facts of the nodeadm examples.
const (
	eksEndpoint = `api_server_endpoint = data.aws_eks_cluster.this.endpoint`
	eksCA       = `certificate_authority = data.aws_eks_cluster.this.certificate_authority[0].data`
	eksCIDR     = `service_cidr = "172.20.0.0/16"`
)

// teamTaint is the taint the examples move out of userData.
var teamTaint = []string{`key = "team"`, `value = "a"`, `effect = "NoSchedule"`}

const (
	al2Call    = "/etc/eks/bootstrap.sh my-cluster"
	srcBootSh  = "awslabs/amazon-eks-ami templates/al2/runtime/bootstrap.sh at 41298160, before AL2 was removed (the `while [[ $# -gt 0 ]]; case \"$1\"` loop)"
	srcKubelet = "k8s.io/kubernetes pkg/util/taints/taints.go parseTaint, NewTaintsVar (--register-with-taints)"
)

var (
	RuleCIDRMissing = rules.Register(rules.Rule{
		ID: "cluster-cidr-missing", Severity: rules.Error, Category: category,
		Title:     "NodeConfig needs the cluster service CIDR",
		Behaviour: "Karpenter cannot render AL2023 userData without spec.cluster.cidr (`resolving cluster CIDR`, NodeClassNotReady); nodeadm also requires it to derive the cluster DNS address.",
		Source:    "Karpenter bootstrap/nodeadm.go getNodeConfigYAML",
		Bad:       bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksEndpoint, eksCA),
		Good:      bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksEndpoint, eksCA, eksCIDR),
	})
	RuleExtraArgInvalid = rules.Register(rules.Rule{
		ID: "bootstrap-kubelet-arg-invalid", Severity: rules.Error, Category: category,
		Title:     "kubelet_extra_args element that cannot be passed safely",
		Behaviour: "Each element becomes one kubelet argument in a single-quoted shell value, a systemd Environment line or a NodeConfig flag; quotes, whitespace, `$` or backslashes would split or break it, and --register-with-taints/--node-labels would override the taints and labels the block registers (pflag: last flag wins).",
		Source:    "systemd.service(5) \"Command lines\"; " + srcBootSh + " (30-kubelet-extra-args.conf)",
		Bad:       bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, `kubelet_extra_args = ["--register-with-taints=team=a:NoSchedule"]`),
		Good:      bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, rules.Block("register_with_taints", teamTaint...)),
	})
	RuleScriptUnsupported = rules.Register(rules.Rule{
		ID: "bootstrap-script-unsupported", Severity: rules.Error, Category: category,
		Title:     "bootstrap setting the bottlerocket format cannot express",
		Behaviour: "Bottlerocket runs no shell userData and takes no free-form kubelet flags; pre/post scripts and kubelet_extra_args would be silently lost.",
		Source:    "Bottlerocket settings API; this provider's bootstrap renderer",
		Bad:       bootstrapClass(`format = "bottlerocket"`, `cluster_name = "my-cluster"`, `pre_bootstrap_script = "sysctl -w vm.max_map_count=262144"`),
		Good:      "# Write the settings TOML yourself (e.g. settings.kernel.sysctl or a bootstrap container) in user_data.\n" + nodeClass(onCustom, "[settings.kubernetes]\ncluster-name = \"my-cluster\"\n[settings.kubernetes.node-taints]\n\"karpenter.sh/unregistered\" = [\":NoExecute\"]\n[settings.kernel.sysctl]\n\"vm.max_map_count\" = \"262144\"\n"),
	})
	RuleScriptUnsafe = rules.Register(rules.Rule{
		ID: "bootstrap-script-unsafe", Severity: rules.Error, Category: category,
		Title:     "pre/post bootstrap script changes the bootstrap call",
		Behaviour: "The scripts are placed before and after the bootstrap.sh call in one bash script; a trailing backslash, unterminated here-document or `exit` would swallow, alter or skip the call.",
		Source:    "this provider's bootstrap renderer (the rendered script is parsed back and compared)",
		Bad:       bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, `pre_bootstrap_script = "yum install -y jq \\"`),
		Good:      bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, `pre_bootstrap_script = "yum install -y jq"`),
	})
)

// RuleUnregisteredMissing is unregistered-taint-missing, which the NodePool
// cross-check reports again with the pool's consequence.
var RuleUnregisteredMissing = ruleUnregisteredMissing
