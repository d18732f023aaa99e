package nodeclass

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func ptr[T any](v T) *T { return &v }

// valid is a class every check accepts; cases change one thing.
func valid() Class {
	return Class{
		Name:  "default",
		Terms: []ami.Term{{Alias: "al2023@v20251209"}},
		Spec: manifest.EC2NodeClassSpec{
			Role:                       "KarpenterNodeRole-demo",
			SubnetSelectorTerms:        []manifest.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
			SecurityGroupSelectorTerms: []manifest.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
		},
	}
}

func TestValidClassHasNoFindings(t *testing.T) {
	c := valid()
	c.Spec.Tags = map[string]string{"team": "platform"}
	c.Spec.Kubelet = &manifest.Kubelet{
		MaxPods: ptr(int32(110)), EvictionHard: map[string]string{"memory.available": "5%", "nodefs.available": "1Gi"},
		EvictionSoft: map[string]string{"memory.available": "10%"}, EvictionSoftGracePeriod: map[string]string{"memory.available": "1m30s"},
		SystemReserved: map[string]string{"cpu": "100m", "memory": "100Mi"}, ImageGCHighThresholdPercent: ptr(int32(85)), ImageGCLowThresholdPercent: ptr(int32(80)),
	}
	c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "100Gi", VolumeType: "gp3", IOPS: ptr(int64(3000)), Throughput: ptr(int64(125))}}}
	c.Spec.MetadataOptions = &manifest.MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: ptr(int64(2))}
	if fs := Validate(c, versions.DefaultKarpenter); len(fs) > 0 {
		t.Fatalf("unexpected findings: %v", fs)
	}
}

func TestValidateRules(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Class)
		rule   *rules.Rule
		path   string
		want   string
	}{
		{"name", func(c *Class) { c.Name = "GPU_nodes" }, ruleName, "name", `"gpu-nodes"`},
		{"role and profile", func(c *Class) { c.Spec.InstanceProfile = "p" }, ruleIdentity, "role", "exactly one of"},
		{"neither role nor profile", func(c *Class) { c.Spec.Role = "" }, ruleIdentity, "role", "neither role nor instanceProfile"},
		{"no subnets", func(c *Class) { c.Spec.SubnetSelectorTerms = nil }, ruleSelectorCount, "subnet_selector_terms", "0 subnet selector terms"},
		{"empty sg term", func(c *Class) { c.Spec.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{}} }, ruleSelectorEmpty, "security_group_selector_terms[0]", "selects nothing"},
		{"subnet id with tags in one term of two", func(c *Class) {
			c.Spec.SubnetSelectorTerms = append(c.Spec.SubnetSelectorTerms, manifest.SubnetSelectorTerm{ID: "subnet-0abc", Tags: map[string]string{"a": "b"}})
		}, ruleSelectorExclusive, "subnet_selector_terms[1]", "would pass the API server"},
		{"sg name with tags", func(c *Class) {
			c.Spec.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{Name: "nodes", Tags: map[string]string{"a": "b"}}}
		}, ruleSelectorExclusive, "security_group_selector_terms[0]", "Put the name in its own term"},
		{"sg id pattern", func(c *Class) {
			c.Spec.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{ID: "sg-0123 "}}
		}, ruleSelectorID, "security_group_selector_terms[0].id", "sg-0123456789abcdef0"},
		{"empty selector tag value", func(c *Class) {
			c.Spec.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": ""}}}
		}, ruleSelectorTags, `subnet_selector_terms[0].tags["karpenter.sh/discovery"]`, `= "*"`},
		{"reservations before 1.3", func(c *Class) {
			c.Spec.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{{ID: "cr-0123"}}
		}, ruleReservations, "capacity_reservation_selector_terms", "1.3.0"},
		{"reservation criteria", func(c *Class) {
			c.Spec.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{{InstanceMatchCriteria: "any"}}
		}, ruleReservations, "capacity_reservation_selector_terms[0].instance_match_criteria", `"open"`},
		{"reservation owner", func(c *Class) {
			c.Spec.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{{OwnerID: "12345", Tags: map[string]string{"a": "b"}}}
		}, ruleSelectorID, "capacity_reservation_selector_terms[0].owner_id", "12-digit"},
		{"restricted tag", func(c *Class) { c.Spec.Tags = map[string]string{"kubernetes.io/cluster/demo": "owned"} }, ruleTags, `tags["kubernetes.io/cluster/demo"]`, "restricted tag matching kubernetes.io/cluster/"},
		{"two root volumes", func(c *Class) {
			c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{
				{DeviceName: "/dev/xvda", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "20Gi"}},
				{DeviceName: "/dev/xvdb", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "20Gi"}},
			}
		}, ruleBlockDeviceRoot, "block_device_mappings[1].root_volume", "only one blockDeviceMappings with rootVolume"},
		{"ebs without size or snapshot", func(c *Class) {
			c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeType: "gp3"}}}
		}, ruleBlockDeviceEBS, "block_device_mappings[0].ebs", "snapshotID or volumeSize must be defined"},
		{"volume size pattern", func(c *Class) {
			c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "20GB"}}}
		}, ruleBlockDeviceEBS, "block_device_mappings[0].ebs.volume_size", "volumeSize pattern"},
		{"decimal G", func(c *Class) {
			c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "200G"}}}
		}, ruleVolumeDecimal, "block_device_mappings[0].ebs.volume_size", `requests a 187 GiB volume. Write "200Gi"`},
		{"iops on gp2", func(c *Class) {
			c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "20Gi", VolumeType: "gp2", IOPS: ptr(int64(3000))}}}
		}, ruleBlockDeviceEBS, "block_device_mappings[0].ebs.iops", "only for io1, io2 and gp3"},
		{"volume type", func(c *Class) {
			c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "20Gi", VolumeType: "gp4"}}}
		}, ruleBlockDeviceEBS, "block_device_mappings[0].ebs.volume_type", "not an EBS volume type"},
		{"hop limit", func(c *Class) {
			c.Spec.MetadataOptions = &manifest.MetadataOptions{HTTPPutResponseHopLimit: ptr(int64(0))}
		}, ruleMetadata, "metadata_options.http_put_response_hop_limit", "1 to 64"},
		{"http tokens", func(c *Class) { c.Spec.MetadataOptions = &manifest.MetadataOptions{HTTPTokens: "yes"} }, ruleMetadata, "metadata_options.http_tokens", `"required" or "optional"`},
		{"store policy", func(c *Class) { c.Spec.InstanceStorePolicy = "raid0" }, ruleStorePolicy, "instance_store_policy", `only "RAID0"`},
		{"eviction key", func(c *Class) {
			c.Spec.Kubelet = &manifest.Kubelet{EvictionHard: map[string]string{"memory.free": "5%"}}
		}, ruleKubelet, `kubelet.eviction_hard["memory.free"]`, "valid keys for evictionHard"},
		{"eviction value", func(c *Class) {
			c.Spec.Kubelet = &manifest.Kubelet{EvictionHard: map[string]string{"memory.available": "five"}}
		}, ruleKubelet, `kubelet.eviction_hard["memory.available"]`, "neither a percentage"},
		{"soft without grace", func(c *Class) {
			c.Spec.Kubelet = &manifest.Kubelet{EvictionSoft: map[string]string{"memory.available": "10%"}}
		}, ruleKubelet, "kubelet.eviction_soft_grace_period", "does not have a matching evictionSoftGracePeriod"},
		{"reserved key", func(c *Class) { c.Spec.Kubelet = &manifest.Kubelet{KubeReserved: map[string]string{"gpu": "1"}} }, ruleKubelet, `kubelet.kube_reserved["gpu"]`, "valid keys for kubeReserved"},
		{"eviction signal typo", func(c *Class) {
			c.Spec.Kubelet = &manifest.Kubelet{EvictionHard: map[string]string{"memory.availble": "5%"}}
		}, ruleKubelet, `kubelet.eviction_hard["memory.availble"]`, `did you mean "memory.available"?`},
		{"reserved key typo", func(c *Class) { c.Spec.Kubelet = &manifest.Kubelet{KubeReserved: map[string]string{"memroy": "1Gi"}} }, ruleKubelet, `kubelet.kube_reserved["memroy"]`, `did you mean "memory"?`},
		{"reserved negative", func(c *Class) { c.Spec.Kubelet = &manifest.Kubelet{SystemReserved: map[string]string{"cpu": "-100m"}} }, ruleKubelet, `kubelet.system_reserved["cpu"]`, "cannot be a negative resource quantity"},
		{"image gc", func(c *Class) {
			c.Spec.Kubelet = &manifest.Kubelet{ImageGCHighThresholdPercent: ptr(int32(50)), ImageGCLowThresholdPercent: ptr(int32(80))}
		}, ruleKubelet, "kubelet.image_gc_high_threshold_percent", "must be greater than imageGCLowThresholdPercent"},
		{"pods per core on bottlerocket", func(c *Class) {
			c.Terms = []ami.Term{{Alias: "bottlerocket@latest"}}
			c.Spec.Kubelet = &manifest.Kubelet{PodsPerCore: ptr(int32(10))}
		}, rulePodsPerCore, "kubelet.pods_per_core", "no effect on Bottlerocket"},
		{"bootstrap without Custom", func(c *Class) { c.Bootstrap = &userdata.Bootstrap{Format: userdata.FormatNodeadm} }, ruleBootstrapFamily, "bootstrap", "family is AL2023"},
		{"bootstrap with user_data", func(c *Class) {
			c.Family = "Custom"
			c.Bootstrap = &userdata.Bootstrap{Format: userdata.FormatNodeadm}
			c.Spec.UserData = ptr("#!/bin/bash\n")
		}, ruleBootstrapFamily, "user_data", "would be replaced"},
		{"custom without user data", func(c *Class) { c.Family = "Custom" }, ruleCustomNoUserData, "user_data", "never joins"},
		{"alias rules run too", func(c *Class) { c.Terms = []ami.Term{{Alias: "al2023@a@b"}} }, ami.RuleAliasMultipleAt, "ami_selector_terms[0].alias", "log.Fatalf"},
		{"family required", func(c *Class) { c.Terms = []ami.Term{{Name: "team-*"}} }, ami.RuleFamilyRequired, "ami_family", "must specify amiFamily"},
		{"family required, named by the terms", func(c *Class) {
			c.Terms = []ami.Term{{Name: "bottlerocket-aws-k8s-1.32-x86_64-*", Owner: "amazon"}, {Name: "bottlerocket-aws-k8s-1.32-aarch64-*", Owner: "amazon"}}
		}, ami.RuleFamilyRequired, "ami_family", "select Bottlerocket images: set amiFamily Bottlerocket"},
		{"family required, terms disagree", func(c *Class) {
			c.Terms = []ami.Term{{Name: "bottlerocket-aws-k8s-1.32-x86_64-*"}, {Name: "team-al2023-*"}}
		}, ami.RuleFamilyRequired, "ami_family", "Set amiFamily to the family of the images the terms select"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := valid()
			c.change(&cl)
			fs := Validate(cl, versions.Karpenter{Minor: 2, Patch: -1})
			if c.name != "reservations before 1.3" {
				fs = Validate(cl, versions.DefaultKarpenter)
			}
			got := fs.ByRule(c.rule.ID)
			if len(got) != 1 {
				t.Fatalf("want one %s, got %v", c.rule.ID, fs)
			}
			if got[0].Path.String() != c.path || !strings.Contains(got[0].Detail, c.want) {
				t.Fatalf("got %s: %s", got[0].Path, got[0].Detail)
			}
		})
	}
}

func TestValidateUserDataForTheFamily(t *testing.T) {
	c := valid()
	c.Family = "Custom"
	c.Spec.UserData = ptr("#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args='--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
	fs := Validate(c, versions.DefaultKarpenter)
	if len(fs.ByRule("bootstrap-option-equals")) != 1 || fs.ByRule("bootstrap-option-equals")[0].Path.String() != "user_data" {
		t.Fatalf("the --kubelet-extra-args= form must be reported at user_data: %v", fs)
	}
	if len(fs.ByRule("unregistered-taint-missing")) != 1 {
		t.Fatalf("the ignored form registers nothing: %v", fs)
	}
}

func TestValidateSkipsUnknowns(t *testing.T) {
	c := valid()
	c.Spec.Role = ""
	c.Spec.Tags = map[string]string{"kubernetes.io/cluster/x": "owned"}
	c.Spec.SubnetSelectorTerms = nil
	c.Family = "Custom"
	c.Unknown = rules.Unknowns{}
	for _, p := range []rules.Path{pathRole, pathTags, pathSubnets, pathUserData} {
		c.Unknown.Add(p)
	}
	if fs := Validate(c, versions.DefaultKarpenter); len(fs) > 0 {
		t.Fatalf("unknown values must not be judged: %v", fs)
	}
}

func TestBootstrapValidatedWithoutClusterFacts(t *testing.T) {
	c := valid()
	c.Family = "Custom"
	c.Bootstrap = &userdata.Bootstrap{Format: userdata.FormatBootstrapSh, RegisterWithTaints: []taints.Taint{{Key: "gpu", Value: "a/b", Effect: "NoSchedule"}}}
	fs := Validate(c, versions.DefaultKarpenter)
	if !fs.HasErrors() || !strings.HasPrefix(fs[0].Path.String(), "bootstrap.register_with_taints[0]") {
		t.Fatalf("a bad taint in bootstrap must fail validate: %v", fs)
	}
	c.Bootstrap.RegisterWithTaints[0].Value = "true"
	if fs := Validate(c, versions.DefaultKarpenter); len(fs) > 0 {
		t.Fatalf("cluster facts come from the provider at plan: %v", fs)
	}
}
