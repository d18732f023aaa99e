// Package shape holds stand-ins for the Karpenter API structs whose drift hash
// the provider predicts. hashstructure (github.com/mitchellh/hashstructure/v2)
// hashes Go type names, field names, field order, integer widths and `hash`
// tags, so every struct here carries the name, fields (in order), Go kinds and
// tags of its upstream counterpart for the fields the project's manifest model
// can set; fields it cannot set are left out (they are always zero, and
// IgnoreZeroValue skips zero fields). Fields Karpenter marks hash:"ignore"
// whose types are not mirrored (the selector terms) are kept as raw JSON so
// that decoding a rendered manifest with DisallowUnknownFields still accepts
// them, and a manifest field with no counterpart here is an error instead of
// a silently different hash.
//
// Upstream: aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go and
// kubernetes-sigs/karpenter pkg/apis/v1/{nodepool,nodeclaim,duration}.go
// (a field's shape and tags are the same in every release that has it, from
// v1.0.0 to v1.14.1; hash.go lists the fields added after v1.0.0). Leaf
// types that are already Kubernetes library types (corev1.Taint, metav1.Duration,
// resource.Quantity) are used as they are.
package shape

import (
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EC2NodeClassSpec mirrors karpenter-provider-aws v1.EC2NodeClassSpec
// (v1.14.1's field order; each release's hash leaves out the fields its CRD
// did not have, see hash.go).
type EC2NodeClassSpec struct {
	SubnetSelectorTerms              json.RawMessage         `json:"subnetSelectorTerms" hash:"ignore"`
	SecurityGroupSelectorTerms       json.RawMessage         `json:"securityGroupSelectorTerms" hash:"ignore"`
	CapacityReservationSelectorTerms json.RawMessage         `json:"capacityReservationSelectorTerms" hash:"ignore"`
	PlacementGroupSelector           *PlacementGroupSelector `json:"placementGroupSelector,omitempty"`
	AssociatePublicIPAddress         *bool                   `json:"associatePublicIPAddress,omitempty"`
	// IPPrefixCount is ignored by the hash in every release that has it
	// (1.8+): a change does not drift nodes.
	IPPrefixCount    *int32          `json:"ipPrefixCount,omitempty" hash:"ignore"`
	AMISelectorTerms json.RawMessage `json:"amiSelectorTerms" hash:"ignore"`
	// AMIFamily is ignored by the hash; Karpenter hashes the family it
	// resolves (EC2NodeClass.AMIFamily()) next to the spec instead.
	AMIFamily           *string               `json:"amiFamily,omitempty" hash:"ignore"`
	UserData            *string               `json:"userData,omitempty"`
	Role                string                `json:"role,omitempty"`
	InstanceProfile     *string               `json:"instanceProfile,omitempty"`
	Tags                map[string]string     `json:"tags,omitempty"`
	Kubelet             *KubeletConfiguration `json:"kubelet,omitempty"`
	BlockDeviceMappings []*BlockDeviceMapping `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy *string               `json:"instanceStorePolicy,omitempty"`
	NetworkInterfaces   []*NetworkInterface   `json:"networkInterfaces,omitempty"`
	DetailedMonitoring  *bool                 `json:"detailedMonitoring,omitempty"`
	MetadataOptions     *MetadataOptions      `json:"metadataOptions,omitempty"`
	ConnectionTracking  *ConnectionTracking   `json:"connectionTracking,omitempty"`
	Context             *string               `json:"context,omitempty"`
	CPUOptions          *CPUOptions           `json:"cpuOptions,omitempty"`
}

// PlacementGroupSelector mirrors v1.PlacementGroupSelector (1.11+).
type PlacementGroupSelector struct {
	Name *string `json:"name,omitempty"`
	ID   *string `json:"id,omitempty"`
}

// NetworkInterface mirrors v1.NetworkInterface (1.11+). The fields have no
// omitempty upstream; index 0 is still skipped by IgnoreZeroValue.
type NetworkInterface struct {
	NetworkCardIndex int32  `json:"networkCardIndex"`
	DeviceIndex      int32  `json:"deviceIndex"`
	InterfaceType    string `json:"interfaceType"`
}

// ConnectionTracking mirrors v1.ConnectionTracking (1.13+).
type ConnectionTracking struct {
	TCPEstablishedTimeout *int32 `json:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      *int32 `json:"udpStreamTimeout,omitempty"`
	UDPTimeout            *int32 `json:"udpTimeout,omitempty"`
}

// CPUOptions mirrors v1.CPUOptions (1.13+).
type CPUOptions struct {
	NestedVirtualization *string `json:"nestedVirtualization,omitempty"`
}

// KubeletConfiguration mirrors v1.KubeletConfiguration (the typed kubelet of
// v1.0 to v1.14).
type KubeletConfiguration struct {
	ClusterDNS                  []string                   `json:"clusterDNS,omitempty"`
	MaxPods                     *int32                     `json:"maxPods,omitempty"`
	PodsPerCore                 *int32                     `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string          `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string          `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string          `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string          `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32                     `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32                     `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32                     `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool                      `json:"cpuCFSQuota,omitempty"`
}

// BlockDeviceMapping mirrors v1.BlockDeviceMapping.
type BlockDeviceMapping struct {
	DeviceName *string      `json:"deviceName,omitempty"`
	EBS        *BlockDevice `json:"ebs,omitempty"`
	RootVolume bool         `json:"rootVolume,omitempty"`
}

// BlockDevice mirrors v1.BlockDevice. VolumeSize is hashed as the
// Quantity's canonical string ("1024Gi" hashes as "1Ti").
type BlockDevice struct {
	DeleteOnTermination *bool   `json:"deleteOnTermination,omitempty"`
	Encrypted           *bool   `json:"encrypted,omitempty"`
	IOPS                *int64  `json:"iops,omitempty"`
	KMSKeyID            *string `json:"kmsKeyID,omitempty"`
	SnapshotID          *string `json:"snapshotID,omitempty"`
	Throughput          *int64  `json:"throughput,omitempty"`
	// VolumeInitializationRate exists from 1.5.
	VolumeInitializationRate *int32             `json:"volumeInitializationRate,omitempty"`
	VolumeSize               *resource.Quantity `json:"volumeSize,omitempty" hash:"string"`
	VolumeType               *string            `json:"volumeType,omitempty"`
}

// MetadataOptions mirrors v1.MetadataOptions.
type MetadataOptions struct {
	HTTPEndpoint            *string `json:"httpEndpoint,omitempty"`
	HTTPProtocolIPv6        *string `json:"httpProtocolIPv6,omitempty"`
	HTTPPutResponseHopLimit *int64  `json:"httpPutResponseHopLimit,omitempty"`
	HTTPTokens              *string `json:"httpTokens,omitempty"`
}

// NodeClaimTemplate mirrors sigs.k8s.io/karpenter v1.NodeClaimTemplate, the
// value NodePool.Hash() hashes.
type NodeClaimTemplate struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       NodeClaimTemplateSpec `json:"spec"`
}

// ObjectMeta mirrors sigs.k8s.io/karpenter v1.ObjectMeta (embedded, so its
// field name in the hash is "ObjectMeta").
type ObjectMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec mirrors v1.NodeClaimTemplateSpec.
type NodeClaimTemplateSpec struct {
	Taints                 []corev1.Taint      `json:"taints,omitempty"`
	StartupTaints          []corev1.Taint      `json:"startupTaints,omitempty"`
	Requirements           json.RawMessage     `json:"requirements" hash:"ignore"`
	NodeClassRef           *NodeClassReference `json:"nodeClassRef"`
	TerminationGracePeriod *metav1.Duration    `json:"terminationGracePeriod,omitempty"`
	ExpireAfter            NillableDuration    `json:"expireAfter,omitempty"`
}

// NodeClassReference mirrors v1.NodeClassReference (field order kind, name,
// group matters to the hash).
type NodeClassReference struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Group string `json:"group"`
}

// NillableDuration mirrors v1.NillableDuration: "Never" decodes to a nil
// duration, so a template with expireAfter: Never hashes without the field.
type NillableDuration struct {
	*time.Duration

	Raw []byte `hash:"ignore"`
}

// UnmarshalJSON decodes as Karpenter's NillableDuration does.
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "Never" {
		return nil
	}
	pd, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Raw = append([]byte(nil), b...)
	d.Duration = &pd
	return nil
}
