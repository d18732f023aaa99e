package userdata

import (
	"errors"
	"net/netip"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
)

// Render returns the userData Karpenter would put into the launch template
// for a node of family f, as raw text (Karpenter base64-encodes it), or the
// findings that stop it: invalid inputs (checked before anything is written
// into a script), a userData Karpenter cannot merge, or an oversized result.
// It does not lint the user's userData; call lint.UserData for that.
//
// Finding paths address Options fields in Terraform naming: taints[i].key,
// startup_taints[i].value, labels["k"], kubelet.cluster_dns[i],
// kubelet.system_reserved["cpu"]; cluster facts and the user's userData
// have an empty path and are named in the detail.
func Render(f amifamily.Family, o Options) (string, rules.Findings) {
	fs := validateOptions(f, o)
	if fs.HasErrors() {
		return "", fs
	}
	r := resolve(f, o)
	out, err := o.UserData, error(nil) // Custom: passed through unchanged.
	if render, ok := renderers[f.Model().Format()]; ok {
		out, err = render(r)
	}
	if err != nil {
		return "", append(fs, renderError(f, err))
	}
	if len(out) > lint.MaxSize {
		return "", append(fs, lint.TooLarge(len(out), "The rendered userData"))
	}
	return out, fs
}

// renderers are the bootstrap renderers per userData format (Karpenter's
// bootstrap package: eksbootstrap.go, nodeadm.go, bottlerocket.go,
// windows.go); the family's model says which format it reads.
var renderers = map[amifamily.Format]func(resolved) (string, error){
	amifamily.FormatBootstrapSh:  renderAL2,
	amifamily.FormatNodeadm:      renderAL2023,
	amifamily.FormatBottlerocket: renderBottlerocket,
	amifamily.FormatPowerShell:   func(r resolved) (string, error) { return renderWindows(r), nil },
}

func renderError(f amifamily.Family, err error) rules.Finding {
	var me *format.MIMEError
	switch {
	case errors.As(err, &me):
		return lint.MIMEFinding(f.Model().Format(), me)
	case errors.Is(err, errCIDRMissing):
		return rules.New(lint.RuleCIDRMissing, rules.Path{},
			"AL2023 userData needs the cluster's service CIDR (spec.cluster.cidr); Karpenter reports \"resolving cluster CIDR\" and the EC2NodeClass stays NodeClassNotReady. Set the provider's cluster.service_cidr or cluster.name so it can be discovered.")
	case errors.Is(err, errCADecode):
		return rules.New(lint.RuleCANotBase64, rules.Path{}, "The cluster CA bundle is not base64: %v. Pass the base64-encoded PEM bundle.", err)
	case f.Model().Format() == amifamily.FormatBottlerocket:
		return lint.TOMLFinding(err)
	}
	// The renderers report every failure a user's userData can cause with
	// one of the errors above; this is the wording for any other.
	return rules.New(lint.RuleFormatMismatch, rules.Path{},
		"Karpenter cannot combine the userData with its own %s bootstrap part (%v): it fails to build the launch template and launches no node. Write the userData in a format amiFamily %s takes: %s.", f, err, f, f.Model().UserDataAccepts())
}

func validateOptions(f amifamily.Family, o Options) rules.Findings {
	var fs rules.Findings
	if !f.Model().KarpenterBootstraps() {
		if len(o.UserData) > lint.MaxSize {
			fs = append(fs, lint.TooLarge(len(o.UserData), "The userData"))
		}
		return fs
	}
	fs = append(fs, lint.CheckClusterName(o.ClusterName, rules.Path{}, "cluster name")...)
	if o.ClusterEndpoint == "" {
		fs = append(fs, rules.New(lint.RuleInputMissing, rules.Path{}, "The cluster endpoint is empty; Karpenter always passes the API server endpoint. Set the provider's cluster.endpoint or cluster.name."))
	}
	fs = append(fs, lint.CheckEndpoint(o.ClusterEndpoint, rules.Path{}, "cluster endpoint")...)
	fs = append(fs, lint.CheckCA(o.CABundle, rules.Path{}, "cluster certificate authority")...)
	if o.KubeDNSIP != "" {
		fs = append(fs, lint.CheckIP(o.KubeDNSIP, rules.Path{}, "cluster DNS address")...)
	}
	for i, ip := range o.Kubelet.ClusterDNS {
		fs = append(fs, lint.CheckIP(ip, rules.Root("kubelet").Attr("cluster_dns").Index(i), "kubelet cluster_dns entry")...)
	}
	if f.Model().NeedsServiceCIDR() {
		if o.ClusterCIDR == "" {
			fs = append(fs, renderError(f, errCIDRMissing))
		} else if _, err := netip.ParsePrefix(o.ClusterCIDR); err != nil {
			fs = append(fs, rules.New(lint.RuleCIDRMissing, rules.Path{}, "The cluster service CIDR %q is not a CIDR; write it as EKS reports it, e.g. \"172.20.0.0/16\".", o.ClusterCIDR))
		}
	}
	fs = append(fs, lint.CheckTaints(o.Taints, rules.Root("taints"))...)
	fs = append(fs, lint.CheckTaints(o.StartupTaints, rules.Root("startup_taints"))...)
	fs = append(fs, lint.CheckLabels(o.Labels, rules.Root("labels"))...)
	// Labels derived from names have no attribute of their own: no path.
	for _, f := range lint.CheckLabels(map[string]string{labelCapacityType: o.CapacityType, labelNodePool: o.NodePoolName, labelNodeClass: o.NodeClassName}, rules.Path{}) {
		f.Path = rules.Path{}
		fs = append(fs, f)
	}
	k, kp := o.Kubelet, rules.Root("kubelet")
	fs = append(fs, lint.CheckKubeletMap(k.SystemReserved, kp.Attr("system_reserved"), "system_reserved")...)
	fs = append(fs, lint.CheckKubeletMap(k.KubeReserved, kp.Attr("kube_reserved"), "kube_reserved")...)
	fs = append(fs, lint.CheckKubeletMap(k.EvictionHard, kp.Attr("eviction_hard"), "eviction_hard")...)
	fs = append(fs, lint.CheckKubeletMap(k.EvictionSoft, kp.Attr("eviction_soft"), "eviction_soft")...)
	fs = append(fs, lint.CheckKubeletMap(durationStrings(k), kp.Attr("eviction_soft_grace_period"), "eviction_soft_grace_period")...)
	return fs
}
