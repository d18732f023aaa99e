package format

import (
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// BottlerocketConfig is the Bottlerocket userData as Karpenter reads it: the raw
// settings table plus a typed view of the settings it rewrites.
type BottlerocketConfig struct {
	SettingsRaw map[string]any       `toml:"settings"`
	Settings    BottlerocketSettings `toml:"-"`
}

type BottlerocketSettings struct {
	Kubernetes        BottlerocketKubernetes                  `toml:"kubernetes"`
	BootstrapCommands map[string]BottlerocketBootstrapCommand `toml:"bootstrap-commands,omitempty"`
}

// BottlerocketKubernetes mirrors Karpenter's BottlerocketKubernetes: the same keys,
// types and order, because settings.kubernetes is re-serialised from it
// (unknown keys are dropped, typed keys re-ordered) and the order decides
// the bytes of the output.
type BottlerocketKubernetes struct {
	APIServer                          *string                                   `toml:"api-server"`
	CloudProvider                      *string                                   `toml:"cloud-provider"`
	ClusterCertificate                 *string                                   `toml:"cluster-certificate"`
	ClusterName                        *string                                   `toml:"cluster-name"`
	ClusterDNSIP                       *string                                   `toml:"cluster-dns-ip,omitempty"`
	CredentialProviders                map[string]BottlerocketCredentialProvider `toml:"credential-providers,omitempty"`
	NodeLabels                         map[string]string                         `toml:"node-labels,omitempty"`
	NodeTaints                         map[string][]string                       `toml:"node-taints,omitempty"`
	MaxPods                            *int                                      `toml:"max-pods,omitempty"`
	StaticPods                         map[string]BottlerocketStaticPod          `toml:"static-pods,omitempty"`
	EvictionHard                       map[string]string                         `toml:"eviction-hard,omitempty"`
	EvictionSoft                       map[string]string                         `toml:"eviction-soft,omitempty"`
	EvictionSoftGracePeriod            map[string]string                         `toml:"eviction-soft-grace-period,omitempty"`
	EvictionMaxPodGracePeriod          *int                                      `toml:"eviction-max-pod-grace-period,omitempty"`
	KubeReserved                       map[string]string                         `toml:"kube-reserved,omitempty"`
	SystemReserved                     map[string]string                         `toml:"system-reserved,omitempty"`
	AllowedUnsafeSysctls               []string                                  `toml:"allowed-unsafe-sysctls,omitempty"`
	ServerTLSBootstrap                 *bool                                     `toml:"server-tls-bootstrap,omitempty"`
	RegistryQPS                        *int                                      `toml:"registry-qps,omitempty"`
	RegistryBurst                      *int                                      `toml:"registry-burst,omitempty"`
	EventQPS                           *int                                      `toml:"event-qps,omitempty"`
	EventBurst                         *int                                      `toml:"event-burst,omitempty"`
	KubeAPIQPS                         *int                                      `toml:"kube-api-qps,omitempty"`
	KubeAPIBurst                       *int                                      `toml:"kube-api-burst,omitempty"`
	ContainerLogMaxSize                *string                                   `toml:"container-log-max-size,omitempty"`
	ContainerLogMaxFiles               *int                                      `toml:"container-log-max-files,omitempty"`
	CPUManagerPolicy                   *string                                   `toml:"cpu-manager-policy,omitempty"`
	CPUManagerPolicyOptions            []string                                  `toml:"cpu-manager-policy-options,omitempty"`
	CPUManagerReconcilePeriod          *string                                   `toml:"cpu-manager-reconcile-period,omitempty"`
	MemoryManagerPolicy                *string                                   `toml:"memory-manager-policy,omitempty"`
	TopologyManagerScope               *string                                   `toml:"topology-manager-scope,omitempty"`
	TopologyManagerPolicy              *string                                   `toml:"topology-manager-policy,omitempty"`
	TopologyManagerPolicyOptions       *BottlerocketTopologyOptions              `toml:"topology-manager-policy-options,omitempty"`
	ImageGCHighThresholdPercent        *string                                   `toml:"image-gc-high-threshold-percent,omitempty"`
	ImageGCLowThresholdPercent         *string                                   `toml:"image-gc-low-threshold-percent,omitempty"`
	IdsPerPod                          *int                                      `toml:"ids-per-pod,omitempty"`
	CPUCFSQuota                        *bool                                     `toml:"cpu-cfs-quota-enforced,omitempty"`
	ShutdownGracePeriod                *string                                   `toml:"shutdown-grace-period,omitempty"`
	ShutdownGracePeriodForCriticalPods *string                                   `toml:"shutdown-grace-period-for-critical-pods,omitempty"`
	ClusterDomain                      *string                                   `toml:"cluster-domain,omitempty"`
	SeccompDefault                     *bool                                     `toml:"seccomp-default,omitempty"`
	PodPidsLimit                       *int                                      `toml:"pod-pids-limit,omitempty"`
	DeviceOwnershipFromSecurityContext *bool                                     `toml:"device-ownership-from-security-context,omitempty"`
	SingleProcessOOMKill               *bool                                     `toml:"single-process-oom-kill,omitempty"`
	ContainerLogMaxWorkers             *int                                      `toml:"container-log-max-workers,omitempty"`
	ContainerLogMonitorInterval        *string                                   `toml:"container-log-monitor-interval,omitempty"`
	HostnameOverrideSource             *string                                   `toml:"hostname-override-source,omitempty"`
	VerbosityLevel                     *uint32                                   `toml:"log-level,omitempty"`
}

type BottlerocketStaticPod struct {
	Enabled  *bool   `toml:"enabled,omitempty"`
	Manifest *string `toml:"manifest,omitempty"`
}

type BottlerocketCredentialProvider struct {
	Enabled       *bool             `toml:"enabled"`
	CacheDuration *string           `toml:"cache-duration,omitempty"`
	ImagePatterns []string          `toml:"image-patterns"`
	Environment   map[string]string `toml:"environment,omitempty"`
}

type BottlerocketTopologyOptions struct {
	PreferClosestNumaNodes *bool `toml:"prefer-closest-numa-nodes,omitempty"`
	MaxAllowableNumaNodes  *int  `toml:"max-allowable-numa-nodes,omitempty"`
}

type BottlerocketBootstrapCommand struct {
	Commands  [][]string `toml:"commands"`
	Mode      string     `toml:"mode"`
	Essential bool       `toml:"essential"`
}

// ParseBottlerocket reads userData as Karpenter's UnmarshalTOML does and
// also returns the settings.kubernetes keys Karpenter drops (its strict
// re-decode only logs them).
func ParseBottlerocket(userData string) (BottlerocketConfig, [][]string, error) {
	var c BottlerocketConfig
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
		var strict BottlerocketKubernetes
		var missing *toml.StrictMissingError
		if err := d.Decode(&strict); errors.As(err, &missing) {
			for _, e := range missing.Errors {
				unknown = append(unknown, e.Key())
			}
		}
	}
	var typed struct {
		Settings BottlerocketSettings `toml:"settings"`
	}
	if err := toml.Unmarshal([]byte(userData), &typed); err != nil {
		return c, unknown, err
	}
	c.Settings = typed.Settings
	return c, unknown, nil
}

// MarshalBottlerocket is BottlerocketConfig.MarshalTOML: the typed
// settings.kubernetes (and bootstrap-commands, when any) replace the raw ones.
func MarshalBottlerocket(c BottlerocketConfig) (string, error) {
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
