package nodeclass

import (
	"strconv"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// allNewFields is a valid class using every field added after v1.0.
func allNewFields() Class {
	c := valid()
	c.Spec.IPPrefixCount = ptr(int32(1))
	c.Spec.NetworkInterfaces = []manifest.NetworkInterface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
		{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
	}
	c.Spec.PlacementGroupSelector = &manifest.PlacementGroupSelector{Name: ptr("pg")}
	c.Spec.ConnectionTracking = &manifest.ConnectionTracking{TCPEstablishedTimeout: ptr(int32(432000)), UDPStreamTimeout: ptr(int32(60)), UDPTimeout: ptr(int32(30))}
	c.Spec.CPUOptions = &manifest.CPUOptions{NestedVirtualization: ptr("enabled")}
	c.Spec.Context = ptr("ctx-0123")
	c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true,
		EBS: &manifest.BlockDevice{SnapshotID: "snap-0123456789abcdef0", VolumeInitializationRate: ptr(int32(300))}}}
	return c
}

func TestNewFieldsValidOnTheirReleases(t *testing.T) {
	if fs := Validate(allNewFields(), versions.Karpenter{Minor: 13, Patch: 0}); len(fs) > 0 {
		t.Fatalf("unexpected findings on 1.13.0: %v", fs)
	}
}

// Each field is an error on the last patch before the release that
// introduced it, and the message names that release; on the release itself
// it is not.
func TestNewFieldsGatedOnRelease(t *testing.T) {
	for _, tc := range []struct {
		rule  *rules.Rule
		path  string
		minor int
	}{
		{ruleVolumeInitRate, "block_device_mappings[0].ebs.volume_initialization_rate", 5},
		{ruleIPPrefixCount, "ip_prefix_count", 8},
		{ruleNetworkInterfaces, "network_interfaces", 11},
		{rulePlacementGroup, "placement_group_selector", 11},
		{ruleConnTracking, "connection_tracking", 13},
		{ruleCPUOptions, "cpu_options", 13},
	} {
		release := "Karpenter 1." + strconv.Itoa(tc.minor) + ".0"
		at := func(kv versions.Karpenter) *rules.Finding {
			for _, f := range Validate(allNewFields(), kv).ByRule(tc.rule.ID) {
				if f.Path.String() == tc.path {
					return &f
				}
			}
			return nil
		}
		before := versions.Karpenter{Minor: tc.minor - 1, Patch: 9}
		if f := at(before); f == nil || f.Severity != rules.Error || !strings.Contains(f.Detail, "from "+release) || !strings.Contains(f.Detail, "run against Karpenter 1."+strconv.Itoa(tc.minor-1)+".9") ||
			f.Fix == nil || f.Fix.Setting != rules.KarpenterVersionSetting || f.Fix.Value != `"1.`+strconv.Itoa(tc.minor)+`"` {
			t.Errorf("%s on %s: want an error at %s naming %s, got %v", tc.rule.ID, before, tc.path, release, f)
		}
		if f := at(versions.Karpenter{Minor: tc.minor, Patch: -1}); f != nil {
			t.Errorf("%s on 1.%d: unexpected %v", tc.rule.ID, tc.minor, f)
		}
	}
}

func TestNewFieldRules(t *testing.T) {
	// name -> the change, the rule, the path and a part of the message.
	cases := map[string]struct {
		change func(*Class)
		rule   *rules.Rule
		path   string
		want   string
	}{
		"no timeout":            {func(c *Class) { c.Spec.ConnectionTracking = &manifest.ConnectionTracking{} }, ruleConnTracking, "connection_tracking", "at least one of tcpEstablishedTimeout"},
		"tcp timeout low":       {func(c *Class) { c.Spec.ConnectionTracking.TCPEstablishedTimeout = ptr(int32(59)) }, ruleConnTracking, "connection_tracking.tcp_established_timeout", "from 60 to 432000"},
		"udp stream high":       {func(c *Class) { c.Spec.ConnectionTracking.UDPStreamTimeout = ptr(int32(181)) }, ruleConnTracking, "connection_tracking.udp_stream_timeout", "from 60 to 180"},
		"udp low":               {func(c *Class) { c.Spec.ConnectionTracking.UDPTimeout = ptr(int32(29)) }, ruleConnTracking, "connection_tracking.udp_timeout", "from 30 to 60"},
		"nested virtualization": {func(c *Class) { c.Spec.CPUOptions.NestedVirtualization = ptr("true") }, ruleCPUOptions, "cpu_options.nested_virtualization", `"enabled" or "disabled"`},
		"placement both":        {func(c *Class) { c.Spec.PlacementGroupSelector.ID = ptr("pg-0abc") }, rulePlacementGroup, "placement_group_selector", "mutually exclusive"},
		"placement none":        {func(c *Class) { c.Spec.PlacementGroupSelector = &manifest.PlacementGroupSelector{} }, rulePlacementGroup, "placement_group_selector", "['name', 'id']"},
		"placement empty name":  {func(c *Class) { c.Spec.PlacementGroupSelector.Name = ptr("") }, rulePlacementGroup, "placement_group_selector.name", "at least one character"},
		"placement id pattern": {func(c *Class) {
			c.Spec.PlacementGroupSelector = &manifest.PlacementGroupSelector{ID: ptr("pg-ABC")}
		}, rulePlacementGroup, "placement_group_selector.id", "^pg-[0-9a-z]+$"},
		"ip prefix negative": {func(c *Class) { c.Spec.IPPrefixCount = ptr(int32(-1)) }, ruleIPPrefixCount, "ip_prefix_count", ">= 0"},
		"no primary":         {func(c *Class) { c.Spec.NetworkInterfaces[0].InterfaceType = "efa-only" }, ruleNetworkInterfaces, "network_interfaces", "primary interface"},
		"bad type":           {func(c *Class) { c.Spec.NetworkInterfaces[1].InterfaceType = "efa" }, ruleNetworkInterfaces, "network_interfaces[1].interface_type", `"efa-only"`},
		"negative index":     {func(c *Class) { c.Spec.NetworkInterfaces[1].DeviceIndex = -1 }, ruleNetworkInterfaces, "network_interfaces[1].device_index", ">= 0"},
		"duplicate slot": {func(c *Class) {
			c.Spec.NetworkInterfaces = append(c.Spec.NetworkInterfaces, manifest.NetworkInterface{InterfaceType: "interface"})
		}, ruleNetworkInterfaces, "network_interfaces[2]", "already used by networkInterfaces[0]"},
		"two efa on one card": {func(c *Class) {
			c.Spec.NetworkInterfaces = append(c.Spec.NetworkInterfaces, manifest.NetworkInterface{NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: "efa-only"})
		}, ruleNetworkInterfaces, "network_interfaces[2]", "at most one EFA device per network card"},
		"public ip with two interfaces": {func(c *Class) { c.Spec.AssociatePublicIPAddress = ptr(true) }, rulePublicIPInterfaces, "associate_public_ip_address", "multiple network interfaces"},
		"rate without snapshot": {func(c *Class) {
			c.Spec.BlockDeviceMappings[0].EBS = &manifest.BlockDevice{VolumeSize: "20Gi", VolumeInitializationRate: ptr(int32(100))}
		}, ruleVolumeInitRate, "block_device_mappings[0].ebs.volume_initialization_rate", "Only allowed if SnapshotID is set"},
		"rate too high": {func(c *Class) {
			c.Spec.BlockDeviceMappings[0].EBS.VolumeInitializationRate = ptr(int32(301))
		}, ruleVolumeInitRate, "block_device_mappings[0].ebs.volume_initialization_rate", "100 to 300"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := allNewFields()
			tc.change(&c)
			fs := Validate(c, versions.DefaultKarpenter)
			var hit bool
			for _, f := range fs.ByRule(tc.rule.ID) {
				hit = hit || (f.Path.String() == tc.path && strings.Contains(f.Detail, tc.want) && fs.HasErrors())
			}
			if !hit {
				t.Fatalf("want %s at %s containing %q, got %v", tc.rule.ID, tc.path, tc.want, fs)
			}
		})
	}
}

// One public IP on a single interface is fine; an unknown value is skipped.
func TestNewFieldRulesQuietCases(t *testing.T) {
	c := allNewFields()
	c.Spec.NetworkInterfaces = c.Spec.NetworkInterfaces[:1]
	c.Spec.AssociatePublicIPAddress = ptr(true)
	if fs := Validate(c, versions.DefaultKarpenter); len(fs) > 0 {
		t.Errorf("single interface with a public IP: %v", fs)
	}
	c = allNewFields()
	c.Spec.ConnectionTracking.UDPTimeout = ptr(int32(5))
	c.Spec.IPPrefixCount = ptr(int32(-1))
	c.Unknown = rules.Unknowns{}
	c.Unknown.Add(pathConnTracking.Attr("udp_timeout"))
	c.Unknown.Add(pathIPPrefixCount)
	if fs := Validate(c, versions.Karpenter{Minor: 7, Patch: 0}); len(fs.ByRule(ruleConnTracking.ID)) != 1 || len(fs.ByRule(ruleIPPrefixCount.ID)) != 0 {
		// connection_tracking is still known to be set on 1.7 (the version
		// gate fires); the unknown timeout and prefix count are skipped.
		t.Errorf("unknown values: %v", fs)
	}
}
