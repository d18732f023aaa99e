// Package manifest holds the project's own model of Karpenter's v1
// EC2NodeClass (karpenter.k8s.aws/v1) and NodePool (karpenter.sh/v1) and
// renders them as deterministic YAML. Karpenter's Go types are not used: they
// pull client-go and marshal zero values wrongly (consolidateAfter: Never,
// requirements: null). Optional scalars are pointers so that "unset" and
// "zero" stay distinct, and every field is omitempty, so no nulls appear.
package manifest

// EC2NodeClass is a karpenter.k8s.aws/v1 EC2NodeClass.
type EC2NodeClass struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   ObjectMeta       `json:"metadata"`
	Spec       EC2NodeClassSpec `json:"spec"`
}

// ObjectMeta is the part of metadata a rendered object carries.
type ObjectMeta struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// EC2NodeClassSpec is spec of an EC2NodeClass (v1.14.1 fields the provider
// exposes).
type EC2NodeClassSpec struct {
	AMIFamily                        string                            `json:"amiFamily,omitempty"`
	AMISelectorTerms                 []AMISelectorTerm                 `json:"amiSelectorTerms,omitempty"`
	SubnetSelectorTerms              []SubnetSelectorTerm              `json:"subnetSelectorTerms,omitempty"`
	SecurityGroupSelectorTerms       []SecurityGroupSelectorTerm       `json:"securityGroupSelectorTerms,omitempty"`
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms,omitempty"`
	Role                             string                            `json:"role,omitempty"`
	InstanceProfile                  string                            `json:"instanceProfile,omitempty"`
	Tags                             map[string]string                 `json:"tags,omitempty"`
	Kubelet                          *Kubelet                          `json:"kubelet,omitempty"`
	BlockDeviceMappings              []BlockDeviceMapping              `json:"blockDeviceMappings,omitempty"`
	MetadataOptions                  *MetadataOptions                  `json:"metadataOptions,omitempty"`
	InstanceStorePolicy              string                            `json:"instanceStorePolicy,omitempty"`
	AssociatePublicIPAddress         *bool                             `json:"associatePublicIPAddress,omitempty"`
	DetailedMonitoring               *bool                             `json:"detailedMonitoring,omitempty"`
	UserData                         *string                           `json:"userData,omitempty"`
	// Fields below exist from the Karpenter release named on each type
	// (earlier CRDs prune them).
	IPPrefixCount          *int32                  `json:"ipPrefixCount,omitempty"`
	NetworkInterfaces      []NetworkInterface      `json:"networkInterfaces,omitempty"`
	PlacementGroupSelector *PlacementGroupSelector `json:"placementGroupSelector,omitempty"`
	ConnectionTracking     *ConnectionTracking     `json:"connectionTracking,omitempty"`
	CPUOptions             *CPUOptions             `json:"cpuOptions,omitempty"`
	Context                *string                 `json:"context,omitempty"`
}

// NetworkInterface is one spec.networkInterfaces entry (Karpenter 1.11+).
// All three fields are required by the CRD and 0 is the primary interface,
// so the indexes are rendered even when zero.
type NetworkInterface struct {
	NetworkCardIndex int32  `json:"networkCardIndex"`
	DeviceIndex      int32  `json:"deviceIndex"`
	InterfaceType    string `json:"interfaceType"`
}

// PlacementGroupSelector is spec.placementGroupSelector (Karpenter 1.11+):
// exactly one of name and id.
type PlacementGroupSelector struct {
	Name *string `json:"name,omitempty"`
	ID   *string `json:"id,omitempty"`
}

// ConnectionTracking is spec.connectionTracking (Karpenter 1.13+), idle
// timeouts in seconds; unset leaves EC2's defaults.
type ConnectionTracking struct {
	TCPEstablishedTimeout *int32 `json:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      *int32 `json:"udpStreamTimeout,omitempty"`
	UDPTimeout            *int32 `json:"udpTimeout,omitempty"`
}

// CPUOptions is spec.cpuOptions (Karpenter 1.13+).
type CPUOptions struct {
	NestedVirtualization *string `json:"nestedVirtualization,omitempty"`
}

// AMISelectorTerm is one amiSelectorTerms entry.
type AMISelectorTerm struct {
	Alias        string            `json:"alias,omitempty"`
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	Owner        string            `json:"owner,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	SSMParameter string            `json:"ssmParameter,omitempty"`
}

// SubnetSelectorTerm is one subnetSelectorTerms entry.
type SubnetSelectorTerm struct {
	ID   string            `json:"id,omitempty"`
	Tags map[string]string `json:"tags,omitempty"`
}

// SecurityGroupSelectorTerm is one securityGroupSelectorTerms entry.
type SecurityGroupSelectorTerm struct {
	ID   string            `json:"id,omitempty"`
	Name string            `json:"name,omitempty"`
	Tags map[string]string `json:"tags,omitempty"`
}

// CapacityReservationSelectorTerm is one capacityReservationSelectorTerms
// entry (Karpenter 1.3+).
type CapacityReservationSelectorTerm struct {
	ID                    string            `json:"id,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	Tags                  map[string]string `json:"tags,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
}

// Kubelet is the typed spec.kubelet of v1.0 to v1.14, declared once: the
// userData renderer takes it too (its JSON tags are
// v1.KubeletConfiguration's, which AL2023's NodeConfig inlines). Grace
// periods stay as written; the renderer prints them as metav1.Duration does.
type Kubelet struct {
	MaxPods                     *int32            `json:"maxPods,omitempty"`
	PodsPerCore                 *int32            `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]string `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32            `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32            `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32            `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool             `json:"cpuCFSQuota,omitempty"`
	ClusterDNS                  []string          `json:"clusterDNS,omitempty"`
}

// BlockDeviceMapping is one blockDeviceMappings entry.
type BlockDeviceMapping struct {
	DeviceName string       `json:"deviceName,omitempty"`
	RootVolume bool         `json:"rootVolume,omitempty"`
	EBS        *BlockDevice `json:"ebs,omitempty"`
}

// BlockDevice is the ebs part of a block device mapping. VolumeSize is a
// Kubernetes quantity string ("20Gi").
type BlockDevice struct {
	VolumeSize          string `json:"volumeSize,omitempty"`
	VolumeType          string `json:"volumeType,omitempty"`
	IOPS                *int64 `json:"iops,omitempty"`
	Throughput          *int64 `json:"throughput,omitempty"`
	Encrypted           *bool  `json:"encrypted,omitempty"`
	KMSKeyID            string `json:"kmsKeyID,omitempty"`
	DeleteOnTermination *bool  `json:"deleteOnTermination,omitempty"`
	SnapshotID          string `json:"snapshotID,omitempty"`
	// VolumeInitializationRate (MiB/s, Karpenter 1.5+) needs SnapshotID.
	VolumeInitializationRate *int32 `json:"volumeInitializationRate,omitempty"`
}

// MetadataOptions is spec.metadataOptions.
type MetadataOptions struct {
	HTTPEndpoint            string `json:"httpEndpoint,omitempty"`
	HTTPProtocolIPv6        string `json:"httpProtocolIPv6,omitempty"`
	HTTPPutResponseHopLimit *int64 `json:"httpPutResponseHopLimit,omitempty"`
	HTTPTokens              string `json:"httpTokens,omitempty"`
}
