package nodeclass

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The advice of the EC2NodeClass checks is a fix the front ends render: the
// field to write (or remove) and the value, in the finding's naming.
func TestFixesWriteTheField(t *testing.T) {
	for name, c := range map[string]struct {
		change func(c *Class)
		rule   *rules.Rule
		writes [][2]string // field, value ("" removes it)
	}{
		"iops on gp2": {func(c *Class) {
			c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "20Gi", VolumeType: "gp2", IOPS: ptr(int64(3000))}}}
		}, ruleBlockDeviceEBS, [][2]string{{"block_device_mappings[0].ebs.volume_type", `"gp3"`}}},
		"soft without grace": {func(c *Class) {
			c.Spec.Kubelet = &manifest.Kubelet{EvictionSoft: map[string]string{"memory.available": "10%"}}
		}, ruleKubelet, [][2]string{{`kubelet.eviction_soft_grace_period["memory.available"]`, `"1m"`}}},
		"pods per core on bottlerocket": {func(c *Class) {
			c.Terms = []ami.Term{{Alias: "bottlerocket@latest"}}
			c.Spec.Kubelet = &manifest.Kubelet{PodsPerCore: ptr(int32(10))}
		}, rulePodsPerCore, [][2]string{{"kubelet.pods_per_core", ""}}},
		"bootstrap without Custom": {func(c *Class) { c.Bootstrap = &userdata.Bootstrap{Format: userdata.FormatNodeadm} },
			ruleBootstrapFamily, [][2]string{{"ami_family", `"Custom"`}, {"bootstrap", ""}}},
		"no subnets": {func(c *Class) { c.Spec.SubnetSelectorTerms = nil }, ruleSelectorCount,
			[][2]string{{`subnet_selector_terms[0].tags["karpenter.sh/discovery"]`, `"<cluster>"`}}},
		"empty term": {func(c *Class) { c.Spec.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{}} }, ruleSelectorEmpty,
			[][2]string{{`security_group_selector_terms[0].tags["karpenter.sh/discovery"]`, `"<cluster>"`}}},
		"no timeout": {func(c *Class) { c.Spec.ConnectionTracking = &manifest.ConnectionTracking{} }, ruleConnTracking,
			[][2]string{{"connection_tracking.tcp_established_timeout", "432000"}, {"connection_tracking", ""}}},
		"nested virtualization": {func(c *Class) { c.Spec.CPUOptions = &manifest.CPUOptions{NestedVirtualization: ptr("true")} }, ruleCPUOptions,
			[][2]string{{"cpu_options.nested_virtualization", `"enabled"`}, {"cpu_options.nested_virtualization", `"disabled"`}}},
		"sg name with tags": {func(c *Class) {
			c.Spec.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{Name: "nodes", Tags: map[string]string{"a": "b"}}}
		}, ruleSelectorExclusive, [][2]string{{"security_group_selector_terms[1].name", `"nodes"`}, {"security_group_selector_terms[0].name", ""}}},
		"no primary interface": {func(c *Class) {
			c.Spec.NetworkInterfaces = []manifest.NetworkInterface{{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"}}
		}, ruleNetworkInterfaces, [][2]string{{"network_interfaces[1].network_card_index", "0"}, {"network_interfaces[1].device_index", "0"}, {"network_interfaces[1].interface_type", `"interface"`}}},
	} {
		t.Run(name, func(t *testing.T) {
			cl := valid()
			c.change(&cl)
			fs := Validate(cl, versions.DefaultKarpenter).ByRule(c.rule.ID)
			if len(fs) == 0 {
				t.Fatalf("no %s", c.rule.ID)
			}
			for _, w := range c.writes {
				if !rulestest.FixWrites(fs[0], w[0], w[1]) {
					t.Errorf("the fix does not write %s = %s: %+v", w[0], w[1], fs[0].Fix)
				}
			}
		})
	}
}
