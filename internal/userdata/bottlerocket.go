package userdata

import (
	"fmt"
	"strconv"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
)

// renderBottlerocket is Karpenter's Bottlerocket.Script.
func renderBottlerocket(r resolved) (string, error) {
	c, _, err := format.ParseBottlerocket(r.UserData)
	if err != nil {
		return "", err
	}
	k := &c.Settings.Kubernetes
	name, endpoint := r.ClusterName, r.ClusterEndpoint
	k.ClusterName, k.APIServer = &name, &endpoint
	k.ClusterCertificate = nil
	if r.CABundle != "" {
		ca := r.CABundle
		k.ClusterCertificate = &ca
	}
	// mergo.MergeWithOverwrite: Karpenter's labels win on conflicts.
	if len(r.labels) > 0 && k.NodeLabels == nil {
		k.NodeLabels = map[string]string{}
	}
	for key, v := range r.labels {
		k.NodeLabels[key] = v
	}
	kl := r.Kubelet
	if kl.MaxPods != nil {
		mp := int(*kl.MaxPods)
		k.MaxPods = &mp
	}
	if len(kl.ClusterDNS) > 0 {
		dns := kl.ClusterDNS[0]
		k.ClusterDNSIP = &dns
	}
	if kl.SystemReserved != nil {
		k.SystemReserved = kl.SystemReserved
	}
	if kl.KubeReserved != nil {
		k.KubeReserved = kl.KubeReserved
	}
	if kl.EvictionHard != nil {
		k.EvictionHard = kl.EvictionHard
	}
	if kl.EvictionSoft != nil {
		k.EvictionSoft = kl.EvictionSoft
	}
	if kl.EvictionSoftGracePeriod != nil {
		k.EvictionSoftGracePeriod = durationStrings(kl)
	}
	if kl.EvictionMaxPodGracePeriod != nil {
		v := int(*kl.EvictionMaxPodGracePeriod)
		k.EvictionMaxPodGracePeriod = &v
	}
	if kl.ImageGCHighThresholdPercent != nil {
		v := strconv.FormatInt(int64(*kl.ImageGCHighThresholdPercent), 10)
		k.ImageGCHighThresholdPercent = &v
	}
	if kl.ImageGCLowThresholdPercent != nil {
		v := strconv.FormatInt(int64(*kl.ImageGCLowThresholdPercent), 10)
		k.ImageGCLowThresholdPercent = &v
	}
	if kl.CPUCFSQuota != nil {
		k.CPUCFSQuota = kl.CPUCFSQuota
	}
	// node-taints is replaced wholesale; same-key taints share one array.
	k.NodeTaints = map[string][]string{}
	for _, t := range r.taints {
		k.NodeTaints[t.Key] = append(k.NodeTaints[t.Key], t.Value+":"+t.Effect)
	}
	if r.InstanceStorePolicy == "RAID0" {
		if c.Settings.BootstrapCommands == nil {
			c.Settings.BootstrapCommands = map[string]format.BottlerocketBootstrapCommand{}
		}
		bind := []string{"apiclient", "ephemeral-storage", "bind"}
		if !r.BottlerocketDefaultBind {
			bind = append(bind, "--dirs", "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods")
		}
		c.Settings.BootstrapCommands["000-mount-instance-storage"] = format.BottlerocketBootstrapCommand{
			Commands:  [][]string{{"apiclient", "ephemeral-storage", "init"}, bind},
			Essential: true,
			Mode:      "always",
		}
	}
	out, err := format.MarshalBottlerocket(c)
	if err != nil {
		return "", fmt.Errorf("constructing toml UserData %w", err)
	}
	return out, nil
}
