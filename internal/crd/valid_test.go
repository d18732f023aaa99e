package crd

import (
	"context"
	"reflect"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// validNodeClasses are configurations users write; each must pass untouched.
var validNodeClasses = map[string]manifest.EC2NodeClass{
	"al2023 alias": nodeClass(nil),
	"bottlerocket with data volume and kubelet": nodeClass(func(s *manifest.EC2NodeClassSpec) {
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "bottlerocket@v1.51.0"}}
		s.AMIFamily = "Bottlerocket"
		s.BlockDeviceMappings = []manifest.BlockDeviceMapping{
			{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "4Gi", VolumeType: "gp3", Encrypted: ptr(true), DeleteOnTermination: ptr(true)}},
			{DeviceName: "/dev/xvdb", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "100Gi", VolumeType: "gp3", IOPS: ptr(int64(3000)), Throughput: ptr(int64(125)), Encrypted: ptr(true)}},
		}
		s.Kubelet = &manifest.Kubelet{MaxPods: ptr(int32(110)), ClusterDNS: []string{"10.100.0.10"}}
		s.MetadataOptions = &manifest.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: ptr(int64(2)), HTTPTokens: "required"}
		s.DetailedMonitoring = ptr(true)
		s.Tags = map[string]string{"team": "platform", "cost-center": "1234"}
	}),
	"custom with userData, owned images and instance profile": nodeClass(func(s *manifest.EC2NodeClassSpec) {
		s.AMIFamily = "Custom"
		s.AMISelectorTerms = []manifest.AMISelectorTerm{
			{Tags: map[string]string{"image-family": "golden"}, Owner: "self"},
			{Name: "golden-eks-1.33-*", Owner: "123456789012"},
		}
		s.Role = ""
		s.InstanceProfile = "KarpenterNodeInstanceProfile"
		s.UserData = ptr("#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		s.AssociatePublicIPAddress = ptr(false)
		s.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{ID: "subnet-0123456789abcdef0"}, {ID: "subnet-0fedcba9876543210"}}
		s.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{Name: "eks-cluster-sg-my-cluster"}, {ID: "sg-0123456789abcdef0"}}
		s.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{
			{ID: "cr-0123456789abcdef0"},
			{OwnerID: "123456789012", Tags: map[string]string{"purpose": "ml"}, InstanceMatchCriteria: "targeted"},
		}
	}),
	"windows2022 alias": nodeClass(func(s *manifest.EC2NodeClassSpec) {
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "windows2022@latest"}}
		s.AMIFamily = "Windows2022"
		s.UserData = ptr("<powershell>\nWrite-Host 'hello'\n</powershell>\n")
	}),
	"al2 by name with full kubelet, raid0 and snapshot": nodeClass(func(s *manifest.EC2NodeClassSpec) {
		s.AMIFamily = "AL2"
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{Name: "amazon-eks-node-1.29-*", Owner: "amazon"}, {ID: "ami-0123456789abcdef0"}}
		s.InstanceStorePolicy = "RAID0"
		s.Kubelet = &manifest.Kubelet{
			MaxPods: ptr(int32(58)), PodsPerCore: ptr(int32(10)),
			SystemReserved:              map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi"},
			KubeReserved:                map[string]string{"cpu": "200m", "memory": "100Mi", "pid": "1000"},
			EvictionHard:                map[string]string{"memory.available": "5%", "nodefs.available": "10%", "nodefs.inodesFree": "10%"},
			EvictionSoft:                map[string]string{"memory.available": "500Mi"},
			EvictionSoftGracePeriod:     map[string]string{"memory.available": "1m30s"},
			EvictionMaxPodGracePeriod:   ptr(int32(60)),
			ImageGCHighThresholdPercent: ptr(int32(85)), ImageGCLowThresholdPercent: ptr(int32(80)),
			CPUCFSQuota: ptr(true),
		}
		s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true, EBS: &manifest.BlockDevice{
			SnapshotID: "snap-0123456789abcdef0", VolumeType: "io2", IOPS: ptr(int64(10000)),
			Encrypted: ptr(true), KMSKeyID: "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
		}}}
	}),
	"ssm parameter term": nodeClass(func(s *manifest.EC2NodeClassSpec) {
		s.AMIFamily = "AL2023"
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{SSMParameter: "/my/golden/ami"}}
		s.MetadataOptions = &manifest.MetadataOptions{HTTPProtocolIPv6: "enabled", HTTPTokens: "optional"}
	}),
	// The primary interface is all zeros: the indexes must still be
	// rendered, since the CRD requires them.
	"fields added after v1.0": nodeClass(func(s *manifest.EC2NodeClassSpec) {
		s.IPPrefixCount = ptr(int32(1))
		s.NetworkInterfaces = []manifest.NetworkInterface{
			{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
			{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
		}
		s.PlacementGroupSelector = &manifest.PlacementGroupSelector{ID: ptr("pg-0123456789abcdef0")}
		s.ConnectionTracking = &manifest.ConnectionTracking{TCPEstablishedTimeout: ptr(int32(432000)), UDPStreamTimeout: ptr(int32(180)), UDPTimeout: ptr(int32(60))}
		s.CPUOptions = &manifest.CPUOptions{NestedVirtualization: ptr("enabled")}
		s.Context = ptr("ctx-0123")
		s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true,
			EBS: &manifest.BlockDevice{SnapshotID: "snap-0123456789abcdef0", VolumeInitializationRate: ptr(int32(100))}}}
	}),
}

var validNodePools = map[string]manifest.NodePool{
	"minimal": nodePool(nil),
	"full dynamic pool": nodePool(func(s *manifest.NodePoolSpec) {
		s.Template.Metadata = &manifest.TemplateMeta{
			Labels:      map[string]string{"team": "ml", "karpenter.sh/capacity-type": "spot", "example.com/tier": "gpu"},
			Annotations: map[string]string{"example.com/owner": "platform team <platform@example.com>"},
		}
		t := &s.Template.Spec
		t.Requirements = []manifest.Requirement{
			{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64", "arm64"}},
			{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5", "m6i", "m7i"}, MinValues: ptr(2)},
			{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Gt", Values: []string{"3"}},
			{Key: "karpenter.k8s.aws/instance-memory", Operator: "Lte", Values: []string{"65536"}},
			{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: "DoesNotExist"},
			{Key: "karpenter.sh/capacity-type", Operator: "NotIn", Values: []string{"reserved"}},
			{Key: "topology.kubernetes.io/zone", Operator: "Exists"},
		}
		t.Taints = []manifest.Taint{{Key: "example.com/gpu", Value: "true", Effect: "NoSchedule"}}
		t.StartupTaints = []manifest.Taint{{Key: "node.cilium.io/agent-not-ready", Effect: "NoExecute"}}
		t.ExpireAfter = "720h"
		t.TerminationGracePeriod = "48h"
		s.Disruption = &manifest.Disruption{
			ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: ptr("30s"),
			Budgets: []manifest.Budget{
				{Nodes: "10%"},
				{Nodes: "0", Schedule: ptr("0 9 * * mon-fri"), Duration: ptr("8h"), Reasons: []string{"Drifted", "Underutilized"}},
				{Nodes: "5", Schedule: ptr("@daily"), Duration: ptr("1h30m")},
			},
		}
		s.Limits = map[string]string{"cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": "8"}
		s.Weight = ptr(int32(50))
	}),
	"static pool with replicas": nodePool(func(s *manifest.NodePoolSpec) {
		s.Replicas = ptr(int64(3))
		s.Limits = map[string]string{"nodes": "10"}
	}),
	"never expire, never consolidate, balanced": nodePool(func(s *manifest.NodePoolSpec) {
		s.Template.Spec.ExpireAfter = "Never"
		s.Disruption = &manifest.Disruption{ConsolidationPolicy: "Balanced", ConsolidateAfter: ptr("Never")}
	}),
}

func TestValidManifestsPass(t *testing.T) {
	ctx := context.Background()
	for name, nc := range validNodeClasses {
		t.Run("EC2NodeClass/"+name, func(t *testing.T) {
			res, err := EC2NodeClass.Validate(ctx, object(t, nc))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Errors) > 0 || len(res.Unknown) > 0 {
				t.Fatalf("rejected: %v, unknown %v", res.Errors, res.Unknown)
			}
			if _, fs := ValidateEC2NodeClass(ctx, object(t, nc)); len(fs) > 0 {
				t.Fatalf("findings: %v", fs)
			}
		})
	}
	for name, np := range validNodePools {
		t.Run("NodePool/"+name, func(t *testing.T) {
			res, err := NodePool.Validate(ctx, object(t, np))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Errors) > 0 || len(res.Unknown) > 0 {
				t.Fatalf("rejected: %v, unknown %v", res.Errors, res.Unknown)
			}
			if _, fs := ValidateNodePool(ctx, object(t, np)); len(fs) > 0 {
				t.Fatalf("findings: %v", fs)
			}
		})
	}
}

// The defaulted object is what the server stores: the CRD defaults appear,
// the input is untouched.
func TestDefaulting(t *testing.T) {
	ctx := context.Background()
	in := object(t, nodePool(nil))
	before := object(t, nodePool(nil))
	got, fs := ValidateNodePool(ctx, in)
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	if !reflect.DeepEqual(in, before) {
		t.Fatal("the caller's object was modified")
	}
	y, err := manifest.YAML(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  disruption:
    budgets:
    - nodes: 10%
    consolidateAfter: 0s
    consolidationPolicy: WhenEmptyOrUnderutilized
  template:
    spec:
      expireAfter: 720h
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
      - key: kubernetes.io/arch
        operator: In
        values:
        - amd64
`
	if y != want {
		t.Fatalf("defaulted NodePool:\n%s\nwant\n%s", y, want)
	}

	nc, fs := ValidateEC2NodeClass(ctx, object(t, nodeClass(nil)))
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	mo, _ := nc["spec"].(map[string]any)["metadataOptions"].(map[string]any)
	wantMO := map[string]any{"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": int64(1), "httpTokens": "required"}
	if !reflect.DeepEqual(mo, wantMO) {
		t.Fatalf("metadataOptions defaults: %#v", mo)
	}
}
