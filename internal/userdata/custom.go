package userdata

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"mvdan.cc/sh/v3/syntax"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
)

// BootstrapFormat is the `format` of the bootstrap block.
type BootstrapFormat string

// Bootstrap formats: the userData formats of the Linux families.
const (
	FormatBootstrapSh  = BootstrapFormat(amifamily.FormatBootstrapSh)
	FormatNodeadm      = BootstrapFormat(amifamily.FormatNodeadm)
	FormatBottlerocket = BootstrapFormat(amifamily.FormatBottlerocket)
)

// Bootstrap is the `bootstrap` block of karpenter_ec2nodeclass: the inputs
// of complete Custom userData.
type Bootstrap struct {
	Format               BootstrapFormat
	ClusterName          string
	APIServerEndpoint    string
	CertificateAuthority string // base64 PEM bundle
	ServiceCIDR          string
	ClusterDNS           string
	// RegisterWithTaints are registered in this order, followed by
	// karpenter.sh/unregistered:NoExecute unless listed.
	RegisterWithTaints []taints.Taint
	NodeLabels         map[string]string
	// KubeletExtraArgs are extra kubelet flags, one flag per element
	// ("--flag=value"); not supported by the bottlerocket format.
	KubeletExtraArgs []string
	// PreBootstrapScript and PostBootstrapScript are bash. With bootstrap.sh
	// they run in the same script before and after the bootstrap.sh call
	// (under `set -e`); with nodeadm they become shell parts before and
	// after the NodeConfig part ("#!/bin/bash" is prepended when they have
	// no #! line); the bottlerocket format rejects them, because Bottlerocket
	// runs no shell userData (see bootstrap-script-unsupported).
	PreBootstrapScript, PostBootstrapScript string
}

// RegisteredTaints is what a node bootstrapped by b registers with.
func (b Bootstrap) RegisteredTaints() []taints.Taint {
	return EffectiveTaints(b.RegisterWithTaints, nil)
}

const eksBootstrapPath = "/etc/eks/bootstrap.sh"

// RenderCustom renders Custom userData from the bootstrap block, or returns
// the findings that stop it. Every value is validated before it is written
// and the bootstrap.sh script is parsed back to prove the bootstrap.sh
// call has exactly the intended arguments. Finding paths are relative to
// the block (cluster_name, register_with_taints[0].value, ...).
func RenderCustom(b Bootstrap) (string, rules.Findings) {
	fs := validateBootstrap(b)
	if fs.HasErrors() {
		return "", fs
	}
	var out string
	switch b.Format {
	case FormatBootstrapSh:
		script, argv := bootstrapShScript(b)
		fs = append(fs, verifyBootstrapSh(script, argv)...)
		out = script
	case FormatNodeadm:
		out = nodeadmCustom(b)
	case FormatBottlerocket:
		var err error
		if out, err = bottlerocketCustom(b); err != nil {
			fs = append(fs, lint.TOMLFinding(err))
		}
	}
	if len(out) > lint.MaxSize {
		fs = append(fs, lint.TooLarge(len(out), "The rendered userData"))
	}
	if fs.HasErrors() {
		return "", fs
	}
	return out, fs
}

var extraArgRE = regexp.MustCompile(`^--[A-Za-z0-9][A-Za-z0-9-]*(=[^\s'"\\$` + "`" + `]*)?$`)

func validateBootstrap(b Bootstrap) rules.Findings {
	var fs rules.Findings
	root := rules.Root
	switch b.Format {
	case FormatBootstrapSh, FormatNodeadm, FormatBottlerocket:
	default:
		return rules.Findings{rules.New(lint.RuleInputMissing, root("format"), "format %q is not one of \"bootstrap.sh\", \"nodeadm\", \"bottlerocket\".", b.Format)}
	}
	fs = append(fs, lint.CheckClusterName(b.ClusterName, root("cluster_name"), "cluster_name")...)
	fs = append(fs, lint.CheckEndpoint(b.APIServerEndpoint, root("api_server_endpoint"), "api_server_endpoint")...)
	fs = append(fs, lint.CheckCA(b.CertificateAuthority, root("certificate_authority"), "certificate_authority")...)
	if b.ClusterDNS != "" {
		fs = append(fs, lint.CheckIP(b.ClusterDNS, root("cluster_dns"), "cluster_dns")...)
	}
	if b.ServiceCIDR != "" {
		if _, err := netip.ParsePrefix(b.ServiceCIDR); err != nil || !lint.ScriptSafe(b.ServiceCIDR) {
			fs = append(fs, rules.New(lint.RuleValueUnsafe, root("service_cidr"), "service_cidr %q is not a CIDR; write it as EKS reports it, e.g. \"172.20.0.0/16\".", b.ServiceCIDR))
		}
	}
	if b.Format != FormatBootstrapSh {
		// bootstrap.sh can describe the cluster itself; nodeadm and
		// Bottlerocket cannot.
		for _, req := range []struct{ name, v string }{{"api_server_endpoint", b.APIServerEndpoint}, {"certificate_authority", b.CertificateAuthority}} {
			if req.v == "" {
				fs = append(fs, rules.New(lint.RuleInputMissing, root(req.name), "%s is required by the %s format: %s. Pass it from the cluster (e.g. data.aws_eks_cluster).", req.name, b.Format, missingConsequence(b.Format)))
			}
		}
	}
	if b.Format == FormatNodeadm && b.ServiceCIDR == "" {
		fs = append(fs, rules.New(lint.RuleCIDRMissing, root("service_cidr"), "service_cidr is required by the nodeadm format: NodeConfig spec.cluster.cidr is mandatory and nodeadm derives the cluster DNS address from it. Set it to the cluster's service CIDR, e.g. \"172.20.0.0/16\"."))
	}
	fs = append(fs, lint.CheckTaints(b.RegisterWithTaints, root("register_with_taints"))...)
	for _, i := range taints.Duplicates(b.RegisterWithTaints) {
		fs = append(fs, rules.New(lint.RuleTaintInvalid, root("register_with_taints").Index(i), "Taint %s repeats the key and effect of an earlier one; the API server rejects the Node (\"taints must be unique by key and effect pair\"). Remove the duplicate.", lint.QuoteTaint(b.RegisterWithTaints[i])))
	}
	fs = append(fs, lint.CheckLabels(b.NodeLabels, root("node_labels"))...)
	for _, k := range slices.Sorted(maps.Keys(b.NodeLabels)) {
		if lint.KubeletRefusesLabel(k) {
			fs = append(fs, rules.New(lint.RuleLabelRestricted, root("node_labels").Key(k),
				"node_labels key %q is in the kubernetes.io/k8s.io namespace outside the kubelet's allowed set (kubelet.kubernetes.io/, node.kubernetes.io/ and the well-known labels); the kubelet refuses to start (\"unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels\"). Put it on the NodePool `labels`; Karpenter applies it after registration.", k))
		}
	}
	for i, a := range b.KubeletExtraArgs {
		p := root("kubelet_extra_args").Index(i)
		name, _, _ := strings.Cut(a, "=")
		switch {
		case b.Format == FormatBottlerocket:
			fs = append(fs, rules.New(lint.RuleScriptUnsupported, p, "kubelet_extra_args %q cannot be expressed for Bottlerocket, which takes no free-form kubelet flags. Remove it, or write the settings TOML yourself in user_data (settings.kubernetes.*).", a))
		case !extraArgRE.MatchString(a):
			fs = append(fs, rules.New(lint.RuleExtraArgInvalid, p, "kubelet_extra_args element %q is not one flag of the form --name or --name=value without whitespace, quotes, `$`, backticks or backslashes; it would be split or break the quoting of the generated userData. Give each flag as its own element.", a))
		case name == "--register-with-taints" || name == "--node-labels":
			fs = append(fs, rules.New(lint.RuleExtraArgInvalid, p, "kubelet_extra_args element %q would override the %s the block renders (the kubelet keeps the last occurrence), dropping karpenter.sh/unregistered or the node labels. Use register_with_taints / node_labels instead.", a, name))
		}
	}
	for _, s := range []struct{ name, script string }{{"pre_bootstrap_script", b.PreBootstrapScript}, {"post_bootstrap_script", b.PostBootstrapScript}} {
		if s.script == "" {
			continue
		}
		if b.Format == FormatBottlerocket {
			fs = append(fs, rules.New(lint.RuleScriptUnsupported, root(s.name), "%s is set, but Bottlerocket runs no shell userData: the bottlerocket format has nowhere to put it. Use Bottlerocket settings (e.g. settings.kernel.sysctl) or a bootstrap container, written as settings TOML in user_data instead of the bootstrap block.", s.name))
			continue
		}
		fs = append(fs, lint.Script(s.script).Under(root(s.name))...)
		if b.Format == FormatBootstrapSh && s.name == "pre_bootstrap_script" {
			fs = append(fs, checkPreScriptExits(s.script)...)
		}
	}
	return fs
}

func missingConsequence(f BootstrapFormat) string {
	if f == FormatNodeadm {
		return "nodeadm rejects a NodeConfig without it and `nodeadm init` fails"
	}
	return "Bottlerocket cannot reach or trust the API server without it and the node never joins"
}

// checkPreScriptExits reports a top-level exit/exec in the pre script,
// which would end the script before the bootstrap.sh call.
func checkPreScriptExits(script string) rules.Findings {
	f, err := shell.Parse(script)
	if err != nil {
		return nil
	}
	var fs rules.Findings
	for _, st := range f.Stmts {
		ce, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 {
			continue
		}
		if w := shell.EvalWord(ce.Args[0]); w.Static && (w.Value == "exit" || (w.Value == "exec" && len(ce.Args) > 1)) {
			fs = append(fs, rules.New(lint.RuleScriptUnsafe, rules.Root("pre_bootstrap_script"),
				"Line %d runs `%s` at the top level of the pre-bootstrap script, which ends the script before the bootstrap.sh call: the node never joins. Remove it or move it into a subshell or function.", ce.Pos().Line(), w.Value))
		}
	}
	return fs
}

// sq single-quotes a validated value.
func sq(v string) string { return "'" + v + "'" }

// bootstrapShScript renders the bootstrap.sh format and returns the argv
// the bootstrap.sh call must parse back to.
func bootstrapShScript(b Bootstrap) (string, []string) {
	argv := []string{eksBootstrapPath, b.ClusterName}
	var sb strings.Builder
	sb.WriteString("#!/bin/bash -xe\n")
	sb.WriteString("exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n")
	if b.PreBootstrapScript != "" {
		sb.WriteString(strings.TrimSuffix(b.PreBootstrapScript, "\n") + "\n")
	}
	sb.WriteString(eksBootstrapPath + " " + sq(b.ClusterName))
	opt := func(name, v string, newLine bool) {
		argv = append(argv, name, v)
		if newLine {
			sb.WriteString(" \\\n")
		} else {
			sb.WriteString(" ")
		}
		sb.WriteString(name + " " + sq(v))
	}
	if b.APIServerEndpoint != "" {
		opt("--apiserver-endpoint", b.APIServerEndpoint, false)
	}
	if b.CertificateAuthority != "" {
		opt("--b64-cluster-ca", b.CertificateAuthority, false)
	}
	v6CIDR := false
	if p, err := netip.ParsePrefix(b.ServiceCIDR); err == nil && p.Addr().Is6() {
		v6CIDR = true
	}
	if v6CIDR || (b.ClusterDNS != "" && isIPv6DNS([]string{b.ClusterDNS})) {
		opt("--ip-family", "ipv6", true)
	}
	if v6CIDR {
		opt("--service-ipv6-cidr", b.ServiceCIDR, true)
	}
	if b.ClusterDNS != "" {
		opt("--dns-cluster-ip", b.ClusterDNS, true)
	}
	opt("--kubelet-extra-args", strings.Join(customKubeletArgs(b), " "), true)
	sb.WriteString("\n")
	if b.PostBootstrapScript != "" {
		sb.WriteString(strings.TrimSuffix(b.PostBootstrapScript, "\n") + "\n")
	}
	return sb.String(), argv
}

// customKubeletArgs are the kubelet flags of the bootstrap.sh and nodeadm
// formats: labels, taints (bootstrap.sh only), extra args.
func customKubeletArgs(b Bootstrap) []string {
	var args []string
	if len(b.NodeLabels) > 0 {
		args = append(args, "--node-labels="+joinLabels(b.NodeLabels))
	}
	if b.Format == FormatBootstrapSh {
		args = append(args, "--register-with-taints="+taints.Join(b.RegisteredTaints()))
	}
	for _, a := range b.KubeletExtraArgs {
		// Quote values with < or > as Karpenter does, so no shell that
		// re-reads the arguments takes them for redirections.
		if name, v, ok := strings.Cut(a, "="); ok && strings.ContainsAny(v, "<>") {
			a = name + "=\"" + v + "\""
		}
		args = append(args, a)
	}
	return args
}

func joinLabels(m map[string]string) string {
	pairs := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		pairs = append(pairs, k+"="+m[k])
	}
	return strings.Join(pairs, ",")
}

// verifyBootstrapSh parses the rendered script back and requires exactly
// one top-level bootstrap.sh call with argv want.
func verifyBootstrapSh(script string, want []string) rules.Findings {
	got, err := BootstrapCalls(script)
	fail := func(format string, args ...any) rules.Findings {
		return rules.Findings{rules.New(lint.RuleScriptUnsafe, rules.Path{}, format+" Check pre_bootstrap_script and post_bootstrap_script for a trailing backslash, an unterminated here-document or quote, or their own bootstrap.sh call.", args...)}
	}
	switch {
	case err != nil:
		return fail("The rendered script does not parse: %v.", err)
	case len(got) != 1:
		return fail("The rendered script has %d bootstrap.sh calls instead of one.", len(got))
	case !slices.Equal(got[0], want):
		return fail("The bootstrap.sh call parses to %q instead of %q.", got[0], want)
	}
	return nil
}

// BootstrapCalls parses a bash script and returns the argv (after quote
// removal) of each top-level bootstrap.sh call; a call with an expansion in
// its words is returned with the expansion's source text. It is what the
// renderer and its tests use to prove the rendered call is intact.
func BootstrapCalls(script string) ([][]string, error) {
	f, err := shell.Parse(script)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, c := range shell.Calls(f) {
		idx := c.BootstrapIndex()
		if idx < 0 {
			continue
		}
		if !slices.Contains(f.Stmts, c.Stmt) {
			return nil, fmt.Errorf("line %d: bootstrap.sh call is nested inside another command", c.Call.Pos().Line())
		}
		var argv []string
		for _, a := range c.Args[idx:] {
			if !a.Static {
				argv = append(argv, script[a.Node.Pos().Offset():a.Node.End().Offset()])
				continue
			}
			argv = append(argv, a.Value)
		}
		out = append(out, argv)
	}
	return out, nil
}

// withShebang makes a script runnable as a cloud-init shell part.
func withShebang(s string) string {
	if strings.HasPrefix(s, "#!") {
		return s
	}
	return "#!/bin/bash\n" + s
}

// nodeadmCustom renders the nodeadm format: pre part, NodeConfig, post part.
func nodeadmCustom(b Bootstrap) string {
	ca, _ := base64.StdEncoding.DecodeString(b.CertificateAuthority)
	kubeletConfig := map[string]any{"registerWithTaints": b.RegisteredTaints()}
	if b.ClusterDNS != "" {
		kubeletConfig["clusterDNS"] = []string{b.ClusterDNS}
	}
	kubelet := map[string]any{"config": kubeletConfig}
	if args := customKubeletArgs(b); len(args) > 0 {
		kubelet["flags"] = args
	}
	doc := map[string]any{
		"apiVersion": "node.eks.aws/v1alpha1",
		"kind":       "NodeConfig",
		"spec": map[string]any{
			"cluster": map[string]any{
				"name": b.ClusterName, "apiServerEndpoint": b.APIServerEndpoint,
				"certificateAuthority": base64.StdEncoding.EncodeToString(ca), "cidr": b.ServiceCIDR,
			},
			"kubelet": kubelet,
		},
	}
	y, err := yaml.Marshal(doc)
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	var parts []format.Part
	if b.PreBootstrapScript != "" {
		parts = append(parts, format.TypedPart(format.ContentTypeShell, withShebang(b.PreBootstrapScript)))
	}
	parts = append(parts, format.TypedPart(format.ContentTypeNodeadm, string(y)))
	if b.PostBootstrapScript != "" {
		parts = append(parts, format.TypedPart(format.ContentTypeShell, withShebang(b.PostBootstrapScript)))
	}
	return format.WriteArchive(parts)
}

// bottlerocketCustom renders the bottlerocket format: settings.kubernetes
// with the cluster identity, labels and node-taints.
func bottlerocketCustom(b Bootstrap) (string, error) {
	var doc struct {
		Settings struct {
			Kubernetes format.BottlerocketKubernetes `toml:"kubernetes"`
		} `toml:"settings"`
	}
	k := &doc.Settings.Kubernetes
	name, endpoint, ca := b.ClusterName, b.APIServerEndpoint, b.CertificateAuthority
	k.ClusterName, k.APIServer, k.ClusterCertificate = &name, &endpoint, &ca
	if b.ClusterDNS != "" {
		dns := b.ClusterDNS
		k.ClusterDNSIP = &dns
	}
	k.NodeLabels = b.NodeLabels
	k.NodeTaints = map[string][]string{}
	for _, t := range b.RegisteredTaints() {
		k.NodeTaints[t.Key] = append(k.NodeTaints[t.Key], t.Value+":"+t.Effect)
	}
	out, err := toml.Marshal(doc)
	return string(out), err
}
