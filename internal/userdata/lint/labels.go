package lint

import "strings"

func labelDomain(key string) string {
	if i := strings.Index(key, "/"); i >= 0 {
		return key[:i]
	}
	return ""
}

func inDomain(domain, d string) bool { return domain == d || strings.HasSuffix(domain, "."+d) }

// IsForbiddenLabel is Karpenter's isRestrictedLabel (resolver.go).
func IsForbiddenLabel(key string) bool {
	d := labelDomain(key)
	return inDomain(d, "node-restriction.kubernetes.io") || inDomain(d, "kubernetes.io") || inDomain(d, "k8s.io")
}

// kubeletAllowedLabels is the kubelet's specifically allowed set for
// --node-labels in the kubernetes.io namespace (k8s.io/kubelet
// pkg/apis/well_known_labels.go kubeletLabels).
var kubeletAllowedLabels = map[string]bool{
	"beta.kubernetes.io/arch": true, "beta.kubernetes.io/instance-type": true, "beta.kubernetes.io/os": true,
	"failure-domain.beta.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/zone": true,
	"kubernetes.io/arch": true, "kubernetes.io/hostname": true, "kubernetes.io/os": true,
	"node.kubernetes.io/instance-type": true, "topology.kubernetes.io/region": true, "topology.kubernetes.io/zone": true,
}

// KubeletRefusesLabel reports whether the kubelet refuses to start with this
// key in --node-labels (cmd/kubelet/app/options ValidateKubeletFlags).
func KubeletRefusesLabel(key string) bool {
	d := labelDomain(key)
	if !inDomain(d, "kubernetes.io") && !inDomain(d, "k8s.io") {
		return false
	}
	if kubeletAllowedLabels[key] {
		return false
	}
	return !inDomain(d, "kubelet.kubernetes.io") && !inDomain(d, "node.kubernetes.io")
}
