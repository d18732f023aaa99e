package userdata

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// nodeLabelArg is Karpenter's Options.nodeLabelArg: keys sorted, %q-wrapped,
// omitted without labels.
func nodeLabelArg(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(labels))
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + labels[k]
	}
	return fmt.Sprintf("--node-labels=%q", strings.Join(pairs, ","))
}

// nodeTaintArg is Karpenter's Options.nodeTaintArg; always present because
// the unregistered taint always is.
func nodeTaintArg(ts []taints.Taint) string {
	return fmt.Sprintf("--register-with-taints=%q", taints.Join(ts))
}

// joinParameterArgs is Karpenter's helper of the same job, with the keys
// sorted: Karpenter iterates a Go map there, so its order is random and a
// plan must be stable.
func joinParameterArgs(name string, m map[string]string, sep string) string {
	if len(m) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(m))
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + sep + m[k]
	}
	return fmt.Sprintf("%s=%q", name, strings.Join(pairs, ","))
}

// kubeletExtraArgs is Karpenter's Options.kubeletExtraArgs for AL2 and
// Windows, in its order.
func kubeletExtraArgs(r resolved) []string {
	k := r.Kubelet
	args := []string{nodeLabelArg(r.labels), nodeTaintArg(r.taints)}
	if k.MaxPods != nil {
		args = append(args, fmt.Sprintf("--max-pods=%d", *k.MaxPods))
	}
	if k.PodsPerCore != nil {
		args = append(args, fmt.Sprintf("--pods-per-core=%d", *k.PodsPerCore))
	}
	args = append(args,
		joinParameterArgs("--system-reserved", k.SystemReserved, "="),
		joinParameterArgs("--kube-reserved", k.KubeReserved, "="),
		joinParameterArgs("--eviction-hard", k.EvictionHard, "<"),
		joinParameterArgs("--eviction-soft", k.EvictionSoft, "<"),
		joinParameterArgs("--eviction-soft-grace-period", durationStrings(k), "="),
	)
	if k.EvictionMaxPodGracePeriod != nil {
		args = append(args, fmt.Sprintf("--eviction-max-pod-grace-period=%d", *k.EvictionMaxPodGracePeriod))
	}
	if k.ImageGCHighThresholdPercent != nil {
		args = append(args, fmt.Sprintf("--image-gc-high-threshold=%d", *k.ImageGCHighThresholdPercent))
	}
	if k.ImageGCLowThresholdPercent != nil {
		args = append(args, fmt.Sprintf("--image-gc-low-threshold=%d", *k.ImageGCLowThresholdPercent))
	}
	if k.CPUCFSQuota != nil {
		args = append(args, fmt.Sprintf("--cpu-cfs-quota=%t", *k.CPUCFSQuota))
	}
	out := args[:0]
	for _, a := range args {
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

// durationStrings is evictionSoftGracePeriod as Karpenter renders it: the
// API server parses each value into a metav1.Duration, printed with
// Duration.String ("1m" becomes "1m0s"). Values that do not parse are the
// class's findings and are left out here.
func durationStrings(k manifest.Kubelet) map[string]string {
	if k.EvictionSoftGracePeriod == nil {
		return nil
	}
	m := make(map[string]string, len(k.EvictionSoftGracePeriod))
	for s, v := range k.EvictionSoftGracePeriod {
		if d, err := time.ParseDuration(v); err == nil {
			m[s] = d.String()
		}
	}
	return m
}
