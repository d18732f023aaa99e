package userdata

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// brConfig is the Bottlerocket userData as Karpenter reads it: the raw
// settings table plus a typed view of the settings it rewrites.
type brConfig struct {
	SettingsRaw map[string]any `toml:"settings"`
	Settings    brSettings     `toml:"-"`
}

type brSettings struct {
	Kubernetes        brKubernetes                  `toml:"kubernetes"`
	BootstrapCommands map[string]brBootstrapCommand `toml:"bootstrap-commands,omitempty"`
}

// brKubernetes mirrors Karpenter's BottlerocketKubernetes: the same keys,
// types and order, because settings.kubernetes is re-serialised from it
// (unknown keys are dropped, typed keys re-ordered) and the order decides
// the bytes of the output.
type brKubernetes struct {
	APIServer                          *string                         `toml:"api-server"`
	CloudProvider                      *string                         `toml:"cloud-provider"`
	ClusterCertificate                 *string                         `toml:"cluster-certificate"`
	ClusterName                        *string                         `toml:"cluster-name"`
	ClusterDNSIP                       *string                         `toml:"cluster-dns-ip,omitempty"`
	CredentialProviders                map[string]brCredentialProvider `toml:"credential-providers,omitempty"`
	NodeLabels                         map[string]string               `toml:"node-labels,omitempty"`
	NodeTaints                         map[string][]string             `toml:"node-taints,omitempty"`
	MaxPods                            *int                            `toml:"max-pods,omitempty"`
	StaticPods                         map[string]brStaticPod          `toml:"static-pods,omitempty"`
	EvictionHard                       map[string]string               `toml:"eviction-hard,omitempty"`
	EvictionSoft                       map[string]string               `toml:"eviction-soft,omitempty"`
	EvictionSoftGracePeriod            map[string]string               `toml:"eviction-soft-grace-period,omitempty"`
	EvictionMaxPodGracePeriod          *int                            `toml:"eviction-max-pod-grace-period,omitempty"`
	KubeReserved                       map[string]string               `toml:"kube-reserved,omitempty"`
	SystemReserved                     map[string]string               `toml:"system-reserved,omitempty"`
	AllowedUnsafeSysctls               []string                        `toml:"allowed-unsafe-sysctls,omitempty"`
	ServerTLSBootstrap                 *bool                           `toml:"server-tls-bootstrap,omitempty"`
	RegistryQPS                        *int                            `toml:"registry-qps,omitempty"`
	RegistryBurst                      *int                            `toml:"registry-burst,omitempty"`
	EventQPS                           *int                            `toml:"event-qps,omitempty"`
	EventBurst                         *int                            `toml:"event-burst,omitempty"`
	KubeAPIQPS                         *int                            `toml:"kube-api-qps,omitempty"`
	KubeAPIBurst                       *int                            `toml:"kube-api-burst,omitempty"`
	ContainerLogMaxSize                *string                         `toml:"container-log-max-size,omitempty"`
	ContainerLogMaxFiles               *int                            `toml:"container-log-max-files,omitempty"`
	CPUManagerPolicy                   *string                         `toml:"cpu-manager-policy,omitempty"`
	CPUManagerPolicyOptions            []string                        `toml:"cpu-manager-policy-options,omitempty"`
	CPUManagerReconcilePeriod          *string                         `toml:"cpu-manager-reconcile-period,omitempty"`
	MemoryManagerPolicy                *string                         `toml:"memory-manager-policy,omitempty"`
	TopologyManagerScope               *string                         `toml:"topology-manager-scope,omitempty"`
	TopologyManagerPolicy              *string                         `toml:"topology-manager-policy,omitempty"`
	TopologyManagerPolicyOptions       *brTopologyOptions              `toml:"topology-manager-policy-options,omitempty"`
	ImageGCHighThresholdPercent        *string                         `toml:"image-gc-high-threshold-percent,omitempty"`
	ImageGCLowThresholdPercent         *string                         `toml:"image-gc-low-threshold-percent,omitempty"`
	IdsPerPod                          *int                            `toml:"ids-per-pod,omitempty"`
	CPUCFSQuota                        *bool                           `toml:"cpu-cfs-quota-enforced,omitempty"`
	ShutdownGracePeriod                *string                         `toml:"shutdown-grace-period,omitempty"`
	ShutdownGracePeriodForCriticalPods *string                         `toml:"shutdown-grace-period-for-critical-pods,omitempty"`
	ClusterDomain                      *string                         `toml:"cluster-domain,omitempty"`
	SeccompDefault                     *bool                           `toml:"seccomp-default,omitempty"`
	PodPidsLimit                       *int                            `toml:"pod-pids-limit,omitempty"`
	DeviceOwnershipFromSecurityContext *bool                           `toml:"device-ownership-from-security-context,omitempty"`
	SingleProcessOOMKill               *bool                           `toml:"single-process-oom-kill,omitempty"`
	ContainerLogMaxWorkers             *int                            `toml:"container-log-max-workers,omitempty"`
	ContainerLogMonitorInterval        *string                         `toml:"container-log-monitor-interval,omitempty"`
	HostnameOverrideSource             *string                         `toml:"hostname-override-source,omitempty"`
	VerbosityLevel                     *uint32                         `toml:"log-level,omitempty"`
}

type brStaticPod struct {
	Enabled  *bool   `toml:"enabled,omitempty"`
	Manifest *string `toml:"manifest,omitempty"`
}

type brCredentialProvider struct {
	Enabled       *bool             `toml:"enabled"`
	CacheDuration *string           `toml:"cache-duration,omitempty"`
	ImagePatterns []string          `toml:"image-patterns"`
	Environment   map[string]string `toml:"environment,omitempty"`
}

type brTopologyOptions struct {
	PreferClosestNumaNodes *bool `toml:"prefer-closest-numa-nodes,omitempty"`
	MaxAllowableNumaNodes  *int  `toml:"max-allowable-numa-nodes,omitempty"`
}

type brBootstrapCommand struct {
	Commands  [][]string `toml:"commands"`
	Mode      string     `toml:"mode"`
	Essential bool       `toml:"essential"`
}

// parseBottlerocket reads userData as Karpenter's UnmarshalTOML does and
// also returns the settings.kubernetes keys Karpenter drops (its strict
// re-decode only logs them).
func parseBottlerocket(userData string) (brConfig, [][]string, error) {
	var c brConfig
	if err := toml.Unmarshal([]byte(userData), &c); err != nil {
		return c, nil, err
	}
	var unknown [][]string
	if raw, ok := c.SettingsRaw["kubernetes"]; ok {
		data, err := toml.Marshal(raw)
		if err != nil {
			return c, nil, err
		}
		d := toml.NewDecoder(strings.NewReader(string(data)))
		d.DisallowUnknownFields()
		var strict brKubernetes
		var missing *toml.StrictMissingError
		if err := d.Decode(&strict); errors.As(err, &missing) {
			for _, e := range missing.Errors {
				unknown = append(unknown, e.Key())
			}
		}
	}
	var typed struct {
		Settings brSettings `toml:"settings"`
	}
	if err := toml.Unmarshal([]byte(userData), &typed); err != nil {
		return c, unknown, err
	}
	c.Settings = typed.Settings
	return c, unknown, nil
}

// renderBottlerocket is Karpenter's Bottlerocket.Script.
func renderBottlerocket(r resolved) (string, error) {
	c, _, err := parseBottlerocket(r.UserData)
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
			c.Settings.BootstrapCommands = map[string]brBootstrapCommand{}
		}
		bind := []string{"apiclient", "ephemeral-storage", "bind"}
		if !r.BottlerocketDefaultBind {
			bind = append(bind, "--dirs", "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods")
		}
		c.Settings.BootstrapCommands["000-mount-instance-storage"] = brBootstrapCommand{
			Commands:  [][]string{{"apiclient", "ephemeral-storage", "init"}, bind},
			Essential: true,
			Mode:      "always",
		}
	}
	out, err := marshalBottlerocket(c)
	if err != nil {
		return "", fmt.Errorf("constructing toml UserData %w", err)
	}
	return out, nil
}

// marshalBottlerocket is BottlerocketConfig.MarshalTOML: the typed
// settings.kubernetes (and bootstrap-commands, when any) replace the raw ones.
func marshalBottlerocket(c brConfig) (string, error) {
	if c.SettingsRaw == nil {
		c.SettingsRaw = map[string]any{}
	}
	c.SettingsRaw["kubernetes"] = c.Settings.Kubernetes
	if c.Settings.BootstrapCommands != nil {
		c.SettingsRaw["bootstrap-commands"] = c.Settings.BootstrapCommands
	}
	out, err := toml.Marshal(c)
	return string(out), err
}
