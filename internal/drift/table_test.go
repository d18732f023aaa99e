package drift

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// Specs the equality tests hash both ways. Together they set every field of
// the manifest model (TestTablesCoverEveryField), with zero values, nil and
// empty slices and maps, and pointers to zero values.

func p[T any](v T) *T { return &v }

func baseClass() manifest.EC2NodeClassSpec {
	return manifest.EC2NodeClassSpec{
		AMISelectorTerms:           []manifest.AMISelectorTerm{{Alias: "al2023@latest"}},
		SubnetSelectorTerms:        []manifest.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
		SecurityGroupSelectorTerms: []manifest.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
		Role:                       "KarpenterNodeRole-demo",
	}
}

// specCase is one named spec of a table.
type specCase[T any] struct {
	name string
	spec T
}

// edited is base() changed by edit.
func edited[T any](base func() T, edit func(*T)) T {
	s := base()
	edit(&s)
	return s
}

func class(edit func(*manifest.EC2NodeClassSpec)) manifest.EC2NodeClassSpec {
	return edited(baseClass, edit)
}

func classCases() []specCase[manifest.EC2NodeClassSpec] {
	return []specCase[manifest.EC2NodeClassSpec]{
		{"minimal alias", baseClass()},
		{"empty spec", manifest.EC2NodeClassSpec{}},
		{"alias pinned", class(func(s *manifest.EC2NodeClassSpec) {
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "al2023@v20251209"}}
		})},
		{"bottlerocket alias with amiFamily", class(func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "Bottlerocket"
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "bottlerocket@v1.32.0"}}
		})},
		{"alias with Custom family", class(func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "Custom"
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "al2@latest"}}
		})},
		{"windows alias", class(func(s *manifest.EC2NodeClassSpec) {
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "windows2022@latest"}}
		})},
		{"custom images by name, owner and tags", class(func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "AL2023"
			s.AMISelectorTerms = []manifest.AMISelectorTerm{
				{Name: "team-eks-node-*", Owner: "self", Tags: map[string]string{"team": "platform"}},
				{ID: "ami-0123456789abcdef0"},
				{SSMParameter: "/platform/ami/al2023"},
			}
		})},
		{"subnets, groups and reservations by id", class(func(s *manifest.EC2NodeClassSpec) {
			s.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{ID: "subnet-0a1b2c"}, {ID: "subnet-0d4e5f"}}
			s.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{ID: "sg-0123"}, {Name: "eks-cluster-sg"}}
			s.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{
				{ID: "cr-0123456789abcdef0"},
				{OwnerID: "123456789012", Tags: map[string]string{"team": "ml"}, InstanceMatchCriteria: "targeted"},
			}
		})},
		{"instance profile instead of role", class(func(s *manifest.EC2NodeClassSpec) {
			s.Role = ""
			s.InstanceProfile = "KarpenterNodeInstanceProfile-demo"
		})},
		{"tags", class(func(s *manifest.EC2NodeClassSpec) {
			s.Tags = map[string]string{"team": "platform", "cost-center": "1234", "empty": ""}
		})},
		{"empty tags map", class(func(s *manifest.EC2NodeClassSpec) { s.Tags = map[string]string{} })},
		{"kubelet scalars", class(func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{
				MaxPods: p(int32(110)), PodsPerCore: p(int32(4)), EvictionMaxPodGracePeriod: p(int32(60)),
				ImageGCHighThresholdPercent: p(int32(85)), ImageGCLowThresholdPercent: p(int32(80)), CPUCFSQuota: p(true),
			}
		})},
		{"kubelet maps", class(func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{
				SystemReserved:          map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi"},
				KubeReserved:            map[string]string{"cpu": "200m", "memory": "100Mi", "pid": "1000"},
				EvictionHard:            map[string]string{"memory.available": "5%", "nodefs.available": "10%"},
				EvictionSoft:            map[string]string{"memory.available": "500Mi"},
				EvictionSoftGracePeriod: map[string]string{"memory.available": "1m30s"},
				ClusterDNS:              []string{"10.100.0.10", "169.254.20.10"},
			}
		})},
		{"kubelet zero values", class(func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{MaxPods: p(int32(0)), PodsPerCore: p(int32(0)), CPUCFSQuota: p(false)}
		})},
		{"kubelet empty", class(func(s *manifest.EC2NodeClassSpec) { s.Kubelet = &manifest.Kubelet{} })},
		{"kubelet empty maps and list", class(func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{SystemReserved: map[string]string{}, ClusterDNS: []string{}, MaxPods: p(int32(58))}
		})},
		{"root volume", class(func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{
				DeviceName: "/dev/xvda", RootVolume: true,
				EBS: &manifest.BlockDevice{VolumeSize: "100Gi", VolumeType: "gp3", IOPS: p(int64(3000)), Throughput: p(int64(125)),
					Encrypted: p(true), KMSKeyID: "arn:aws:kms:us-west-2:111122223333:key/1234abcd", DeleteOnTermination: p(true)},
			}}
		})},
		{"volume sizes canonicalised", class(func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{
				{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "1024Gi", VolumeType: "gp3"}},
				{DeviceName: "/dev/xvdb", EBS: &manifest.BlockDevice{VolumeSize: "1000G", VolumeType: "gp2"}},
				{DeviceName: "/dev/xvdc", EBS: &manifest.BlockDevice{VolumeSize: "2T"}},
			}
		})},
		{"snapshot volume, false booleans", class(func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{
				DeviceName: "/dev/xvdb",
				EBS:        &manifest.BlockDevice{SnapshotID: "snap-0123456789abcdef0", Encrypted: p(false), DeleteOnTermination: p(false), IOPS: p(int64(0))},
			}}
		})},
		{"mapping without ebs", class(func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvdz"}, {}}
		})},
		{"empty mappings list", class(func(s *manifest.EC2NodeClassSpec) { s.BlockDeviceMappings = []manifest.BlockDeviceMapping{} })},
		{"metadata options set", class(func(s *manifest.EC2NodeClassSpec) {
			s.MetadataOptions = &manifest.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "enabled", HTTPPutResponseHopLimit: p(int64(2)), HTTPTokens: "optional"}
		})},
		{"metadata options partial", class(func(s *manifest.EC2NodeClassSpec) {
			s.MetadataOptions = &manifest.MetadataOptions{HTTPTokens: "optional"}
		})},
		{"metadata options equal to defaults", class(func(s *manifest.EC2NodeClassSpec) {
			s.MetadataOptions = &manifest.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: p(int64(1)), HTTPTokens: "required"}
		})},
		{"metadata options empty", class(func(s *manifest.EC2NodeClassSpec) { s.MetadataOptions = &manifest.MetadataOptions{} })},
		{"instance store and flags", class(func(s *manifest.EC2NodeClassSpec) {
			s.InstanceStorePolicy = "RAID0"
			s.AssociatePublicIPAddress = p(true)
			s.DetailedMonitoring = p(true)
		})},
		{"false flags", class(func(s *manifest.EC2NodeClassSpec) {
			s.AssociatePublicIPAddress = p(false)
			s.DetailedMonitoring = p(false)
		})},
		{"user data", class(func(s *manifest.EC2NodeClassSpec) {
			s.UserData = p("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript\n\necho hi\n--//--\n")
		})},
		{"empty user data", class(func(s *manifest.EC2NodeClassSpec) { s.UserData = p("") })},
		{"context", class(func(s *manifest.EC2NodeClassSpec) { s.Context = p("c-0123456789") })},
		{"ip prefixes", class(func(s *manifest.EC2NodeClassSpec) { s.IPPrefixCount = p(int32(2)) })},
		{"zero ip prefixes", class(func(s *manifest.EC2NodeClassSpec) { s.IPPrefixCount = p(int32(0)) })},
		{"network interfaces", class(func(s *manifest.EC2NodeClassSpec) {
			s.NetworkInterfaces = []manifest.NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "interface"},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
			}
		})},
		{"network interfaces reordered", class(func(s *manifest.EC2NodeClassSpec) {
			s.NetworkInterfaces = []manifest.NetworkInterface{
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
			}
		})},
		{"primary interface only", class(func(s *manifest.EC2NodeClassSpec) {
			s.NetworkInterfaces = []manifest.NetworkInterface{{InterfaceType: "interface"}}
		})},
		{"empty network interfaces", class(func(s *manifest.EC2NodeClassSpec) { s.NetworkInterfaces = []manifest.NetworkInterface{} })},
		{"placement group by name", class(func(s *manifest.EC2NodeClassSpec) {
			s.PlacementGroupSelector = &manifest.PlacementGroupSelector{Name: p("training-cluster")}
		})},
		{"placement group by id", class(func(s *manifest.EC2NodeClassSpec) {
			s.PlacementGroupSelector = &manifest.PlacementGroupSelector{ID: p("pg-0123456789abcdef0")}
		})},
		{"connection tracking", class(func(s *manifest.EC2NodeClassSpec) {
			s.ConnectionTracking = &manifest.ConnectionTracking{TCPEstablishedTimeout: p(int32(432000)), UDPStreamTimeout: p(int32(60)), UDPTimeout: p(int32(30))}
		})},
		{"connection tracking one timeout", class(func(s *manifest.EC2NodeClassSpec) {
			s.ConnectionTracking = &manifest.ConnectionTracking{UDPTimeout: p(int32(60))}
		})},
		{"nested virtualization", class(func(s *manifest.EC2NodeClassSpec) {
			s.CPUOptions = &manifest.CPUOptions{NestedVirtualization: p("enabled")}
		})},
		{"nested virtualization disabled", class(func(s *manifest.EC2NodeClassSpec) {
			s.CPUOptions = &manifest.CPUOptions{NestedVirtualization: p("disabled")}
		})},
		{"volume initialization rate", class(func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{
				DeviceName: "/dev/xvdb",
				EBS:        &manifest.BlockDevice{SnapshotID: "snap-0123456789abcdef0", VolumeInitializationRate: p(int32(300))},
			}}
		})},
		{"everything", class(func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "AL2023"
			s.Tags = map[string]string{"team": "platform"}
			s.Kubelet = &manifest.Kubelet{MaxPods: p(int32(29)), ClusterDNS: []string{"10.100.0.10"}, EvictionSoftGracePeriod: map[string]string{"memory.available": "2m"}, EvictionSoft: map[string]string{"memory.available": "1Gi"}}
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "20Gi", VolumeType: "gp3", Encrypted: p(true)}}}
			s.MetadataOptions = &manifest.MetadataOptions{HTTPPutResponseHopLimit: p(int64(2))}
			s.InstanceStorePolicy = "RAID0"
			s.DetailedMonitoring = p(true)
			s.AssociatePublicIPAddress = p(false)
			s.UserData = p("#!/bin/bash\necho hi\n")
			s.Context = p("c-0123456789")
			s.IPPrefixCount = p(int32(1))
			s.NetworkInterfaces = []manifest.NetworkInterface{{InterfaceType: "interface"}, {NetworkCardIndex: 1, InterfaceType: "efa-only"}}
			s.PlacementGroupSelector = &manifest.PlacementGroupSelector{Name: p("spread")}
			s.ConnectionTracking = &manifest.ConnectionTracking{TCPEstablishedTimeout: p(int32(3600))}
			s.CPUOptions = &manifest.CPUOptions{NestedVirtualization: p("enabled")}
		})},
	}
}

func basePool() manifest.NodePoolSpec {
	return manifest.NodePoolSpec{Template: manifest.NodeClaimTemplate{Spec: manifest.NodeClaimTemplateSpec{
		NodeClassRef: manifest.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
		Requirements: []manifest.Requirement{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
	}}}
}

func pool(edit func(*manifest.NodePoolSpec)) manifest.NodePoolSpec {
	return edited(basePool, edit)
}

func poolCases() []specCase[manifest.NodePoolSpec] {
	return []specCase[manifest.NodePoolSpec]{
		{"minimal", basePool()},
		{"empty spec", manifest.NodePoolSpec{}},
		{"other class", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.NodeClassRef.Name = "gpu" })},
		{"labels", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Metadata = &manifest.TemplateMeta{Labels: map[string]string{"team": "platform", "tier": "web"}}
		})},
		{"annotations", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Metadata = &manifest.TemplateMeta{Annotations: map[string]string{"example.com/owner": "platform"}}
		})},
		{"empty metadata", pool(func(s *manifest.NodePoolSpec) { s.Template.Metadata = &manifest.TemplateMeta{} })},
		{"empty label map", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Metadata = &manifest.TemplateMeta{Labels: map[string]string{}, Annotations: map[string]string{"a": ""}}
		})},
		{"taints", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Spec.Taints = []manifest.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}, {Key: "dedicated", Effect: "NoExecute"}}
		})},
		{"taints reordered", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Spec.Taints = []manifest.Taint{{Key: "dedicated", Effect: "NoExecute"}, {Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}}
		})},
		{"startup taints", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Spec.StartupTaints = []manifest.Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: "NoExecute"}}
		})},
		{"empty taint lists", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Spec.Taints = []manifest.Taint{}
			s.Template.Spec.StartupTaints = []manifest.Taint{}
		})},
		{"expire never", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "Never" })},
		{"expire explicit default", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "720h" })},
		{"expire other spelling", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "30h0m" })},
		{"expire 168h", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "168h" })},
		{"termination grace period", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.TerminationGracePeriod = "48h" })},
		{"termination grace period zero", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.TerminationGracePeriod = "0s" })},
		{"requirements with minValues", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Spec.Requirements = []manifest.Requirement{
				{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5", "m6i", "m7i"}, MinValues: p(2)},
				{Key: "karpenter.sh/capacity-type", Operator: "Exists"},
			}
		})},
		{"nil requirements", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.Requirements = nil })},
		{"disruption", pool(func(s *manifest.NodePoolSpec) {
			s.Disruption = &manifest.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: p("5m"),
				Budgets: []manifest.Budget{{Nodes: "0", Schedule: p("0 9 * * mon-fri"), Duration: p("8h"), Reasons: []string{"Drifted"}}, {Nodes: "10%"}}}
		})},
		{"limits and weight", pool(func(s *manifest.NodePoolSpec) {
			s.Limits = map[string]string{"cpu": "1000", "memory": "1000Gi"}
			s.Weight = p(int32(50))
		})},
		{"static replicas", pool(func(s *manifest.NodePoolSpec) {
			s.Replicas = p(int64(3))
			s.Limits = map[string]string{"nodes": "5"}
		})},
		{"empty class ref", pool(func(s *manifest.NodePoolSpec) { s.Template.Spec.NodeClassRef = manifest.NodeClassRef{} })},
		{"taint with empty value and key only", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Spec.Taints = []manifest.Taint{{Key: "a", Effect: "PreferNoSchedule"}}
		})},
		{"everything", pool(func(s *manifest.NodePoolSpec) {
			s.Template.Metadata = &manifest.TemplateMeta{Labels: map[string]string{"team": "ml"}, Annotations: map[string]string{"x": "y"}}
			s.Template.Spec.Taints = []manifest.Taint{{Key: "nvidia.com/gpu", Effect: "NoSchedule"}}
			s.Template.Spec.StartupTaints = []manifest.Taint{{Key: "ebs.csi.aws.com/agent-not-ready", Effect: "NoExecute"}}
			s.Template.Spec.ExpireAfter = "336h"
			s.Template.Spec.TerminationGracePeriod = "1h30m"
			s.Disruption = &manifest.Disruption{Budgets: []manifest.Budget{{Nodes: "1"}}}
			s.Weight = p(int32(10))
		})},
	}
}
