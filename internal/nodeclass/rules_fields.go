package nodeclass

import (
	"fmt"
	"regexp"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The EC2NodeClass fields Karpenter added after v1.0: each is gated on the
// release whose CRD first has it (checked tag by tag in
// aws/karpenter-provider-aws pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml),
// and checked against the CRD's limits and the launch rules Karpenter and EC2
// apply to it. spec.context exists since v1.0.0 and is a free string, so it
// has no rule.

var (
	pathNetworkInterfaces = rules.Root("network_interfaces")
	pathPlacementGroup    = rules.Root("placement_group_selector")
	pathConnTracking      = rules.Root("connection_tracking")
	pathCPUOptions        = rules.Root("cpu_options")
	pathIPPrefixCount     = rules.Root("ip_prefix_count")
	pathPublicIP          = rules.Root("associate_public_ip_address")
)

// provider is a provider block naming a Karpenter release, for examples
// whose point is the release.
func provider(version string) string {
	return rules.Block(`provider "karpenter"`, fmt.Sprintf("karpenter_version = %q", version))
}

var (
	ruleConnTracking = rules.Register(rules.Rule{
		ID: "connection-tracking-invalid", Severity: rules.Error, Category: category,
		Title:     "connection_tracking needs Karpenter 1.13, at least one timeout, and EC2's ranges",
		Behaviour: "`connectionTracking` exists from Karpenter 1.13.0 (an older CRD does not know the field: strict field validation rejects the object, otherwise the API server prunes it and the timeouts never apply). The CRD requires \"at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set\" and bounds them in seconds: tcpEstablishedTimeout 60-432000, udpStreamTimeout 60-180, udpTimeout 30-60. Karpenter sets them on the primary ENI and every `interface` network interface, never on EFA-only ones, and only Nitro instance types support them.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go ConnectionTracking; A:pkg/providers/launchtemplate/launchtemplate.go connectionTrackingSpec",
		Bad:       "connection_tracking { tcp_established_timeout = 30 }",
		Good:      "connection_tracking { tcp_established_timeout = 432000 }",
	})
	ruleCPUOptions = rules.Register(rules.Rule{
		ID: "cpu-options-invalid", Severity: rules.Error, Category: category,
		Title:     "cpu_options needs Karpenter 1.13 and nested_virtualization \"enabled\" or \"disabled\"",
		Behaviour: "`cpuOptions` exists from Karpenter 1.13.0 (an older CRD rejects or prunes it). `nestedVirtualization` is an enum of `enabled` and `disabled`; with `enabled` Karpenter launches only instance types that report nested-virtualization support.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go CPUOptions",
		Bad:       `cpu_options { nested_virtualization = "true" }`,
		Good:      `cpu_options { nested_virtualization = "enabled" }`,
	})
	ruleNetworkInterfaces = rules.Register(rules.Rule{
		ID: "network-interfaces-invalid", Severity: rules.Error, Category: category,
		Title:     "network_interfaces needs Karpenter 1.11, a primary interface and unique slots",
		Behaviour: "`networkInterfaces` exists from Karpenter 1.11.0 (an older CRD rejects or prunes it, and the instances launch with one interface). The CRD allows at most 150, indexes of 0 or more, `interfaceType` `interface` or `efa-only`, and requires \"networkInterfaces must include a primary interface with interfaceType='interface'\" (network card 0, device 0) and \"networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card\". Once set, the list replaces Karpenter's own EFA interfaces: the node advertises one `vpc.amazonaws.com/efa` per `efa-only` entry, and EFA-only interfaces get no IP prefixes, public IP or connection tracking.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go NetworkInterfaces; A:pkg/providers/launchtemplate/launchtemplate.go generateNetworkInterfaces; A:pkg/providers/instancetype/types.go efas",
		Bad: rules.Block("network_interfaces",
			"network_card_index = 1", "device_index = 0", `interface_type = "efa-only"`),
		Good: rules.Body(
			rules.Block("network_interfaces", "network_card_index = 0", "device_index = 0", `interface_type = "interface"`),
			rules.Block("network_interfaces", "network_card_index = 1", "device_index = 0", `interface_type = "efa-only"`)),
	})
	rulePublicIPInterfaces = rules.Register(rules.Rule{
		ID: "network-interfaces-public-ip", Severity: rules.Error, Category: category,
		Title:     "associate_public_ip_address = true cannot be used with several network_interfaces",
		Behaviour: "Karpenter copies `associatePublicIPAddress` onto every `interface` entry of the launch template's network interfaces. EC2 refuses a public IP when an instance launches with more than one network interface: every launch fails with \"InvalidParameterCombination: The associatePublicIPAddress parameter cannot be specified when launching with multiple network interfaces\" and no node is ever created. Leave the attribute unset and launch into subnets with MapPublicIpOnLaunch, or use one interface.",
		Source:    "A:pkg/providers/launchtemplate/launchtemplate.go generateNetworkInterfaces (comment on AssociatePublicIpAddress); aws/karpenter-provider-aws#5666",
		Bad: rules.Body("associate_public_ip_address = true",
			rules.Block("network_interfaces", "network_card_index = 0", "device_index = 0", `interface_type = "interface"`),
			rules.Block("network_interfaces", "network_card_index = 0", "device_index = 1", `interface_type = "interface"`)),
		Good: rules.Body(
			rules.Block("network_interfaces", "network_card_index = 0", "device_index = 0", `interface_type = "interface"`),
			rules.Block("network_interfaces", "network_card_index = 0", "device_index = 1", `interface_type = "interface"`)),
	})
	rulePlacementGroup = rules.Register(rules.Rule{
		ID: "placement-group-selector-invalid", Severity: rules.Error, Category: category,
		Title:     "placement_group_selector needs Karpenter 1.11 and exactly one of name and id",
		Behaviour: "`placementGroupSelector` exists from Karpenter 1.11.0 (an older CRD rejects or prunes it, and nodes launch outside the group). The CRD requires \"expected at least one, got none, ['name', 'id']\" and \"'name' and 'id' are mutually exclusive\"; `id` matches `^pg-[0-9a-z]+$` and `name` is not empty.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go PlacementGroupSelector",
		Bad:       rules.Block("placement_group_selector", `name = "pg"`, `id = "pg-0123456789abcdef0"`),
		Good:      `placement_group_selector { name = "pg" }`,
	})
	ruleIPPrefixCount = rules.Register(rules.Rule{
		ID: "ip-prefix-count-invalid", Severity: rules.Error, Category: category,
		Title:     "ip_prefix_count needs Karpenter 1.8 and a count of 0 or more",
		Behaviour: "`ipPrefixCount` exists from Karpenter 1.8.0 (an older CRD rejects or prunes it, and no prefixes are assigned) and has `minimum: 0`. Karpenter assigns the prefixes (IPv6 prefixes on an IPv6 cluster) to the primary interface and to every `interface` entry of network_interfaces, never to EFA-only ones. Changing it does not drift existing nodes (the field is excluded from the drift hash).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go IPPrefixCount (hash:\"ignore\"); A:pkg/providers/launchtemplate/launchtemplate.go ipCounts",
		Bad:       provider("1.7") + "\n\n" + class("ip_prefix_count = 1", "# ..."),
		Good:      provider("1.8") + "\n\n" + class("ip_prefix_count = 1", "# ..."),
	})
	ruleVolumeInitRate = rules.Register(rules.Rule{
		ID: "ebs-volume-initialization-rate-invalid", Severity: rules.Error, Category: category,
		Title:     "volume_initialization_rate needs Karpenter 1.5, a snapshot_id, and 100-300 MiB/s",
		Behaviour: "`ebs.volumeInitializationRate` exists from Karpenter 1.5.0 (an older CRD rejects or prunes it). The CRD bounds it to 100-300 (MiB/s); EC2 accepts it only for a volume created from a snapshot (\"Only allowed if SnapshotID is set\"), so without `snapshotID` every launch with this class fails.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go BlockDevice.VolumeInitializationRate",
		Bad: rules.Block("block_device_mappings", `device_name = "/dev/xvda"`,
			rules.Block("ebs", `volume_size = "100Gi"`, "volume_initialization_rate = 100")),
		Good: rules.Block("block_device_mappings", `device_name = "/dev/xvda"`,
			rules.Block("ebs", `snapshot_id = "snap-0123456789abcdef0"`, "volume_initialization_rate = 100")),
	})
)

// fieldRelease is the first Karpenter release whose CRD has a field.
type fieldRelease struct {
	rule         *rules.Rule
	path         rules.Path
	minor, patch int
	set          func(s manifest.EC2NodeClassSpec) bool
}

var fieldReleases = []fieldRelease{
	{ruleIPPrefixCount, pathIPPrefixCount, 8, 0, func(s manifest.EC2NodeClassSpec) bool { return s.IPPrefixCount != nil }},
	{ruleNetworkInterfaces, pathNetworkInterfaces, 11, 0, func(s manifest.EC2NodeClassSpec) bool { return len(s.NetworkInterfaces) > 0 }},
	{rulePlacementGroup, pathPlacementGroup, 11, 0, func(s manifest.EC2NodeClassSpec) bool { return s.PlacementGroupSelector != nil }},
	{ruleConnTracking, pathConnTracking, 13, 0, func(s manifest.EC2NodeClassSpec) bool { return s.ConnectionTracking != nil }},
	{ruleCPUOptions, pathCPUOptions, 13, 0, func(s manifest.EC2NodeClassSpec) bool { return s.CPUOptions != nil }},
}

// volumeInitRateRelease is the release of ebs.volumeInitializationRate.
const volumeInitRateMinor = 5

func tooOld(attr string, minor int, kv versions.Karpenter) string {
	return fmt.Sprintf("%s exists from Karpenter 1.%d.0 and the checks run against Karpenter %s: that release's EC2NodeClass CRD does not have the field, so kubectl's strict field validation rejects the object, and without it the API server drops the field and the setting never applies. Upgrade Karpenter to 1.%d.0 or later, or remove %s.", attr, minor, kv, minor, attr)
}

// validateFields checks the fields added after v1.0 for release kv.
func validateFields(c Class, kv versions.Karpenter) rules.Findings {
	var fs rules.Findings
	for _, f := range fieldReleases {
		if !c.Unknown.Is(f.path) && f.set(c.Spec) && !kv.AtLeast(f.minor, f.patch) {
			fs = append(fs, rules.New(f.rule, f.path, "%s", tooOld(fieldPath(f.path), f.minor, kv)).
				WithFix(rules.KarpenterVersion(fmt.Sprintf(`"1.%d"`, f.minor))))
		}
	}
	if n := c.Spec.IPPrefixCount; n != nil && *n < 0 && !c.Unknown.Is(pathIPPrefixCount) {
		fs = append(fs, rules.New(ruleIPPrefixCount, pathIPPrefixCount,
			"%d: the CRD requires ipPrefixCount >= 0 and the API server rejects the EC2NodeClass. Write the number of /28 prefixes to assign, e.g. 1, or remove the attribute.", *n))
	}
	fs = append(fs, validateConnTracking(c)...)
	fs = append(fs, validateCPUOptions(c)...)
	fs = append(fs, validatePlacementGroup(c)...)
	fs = append(fs, validateNetworkInterfaces(c)...)
	fs = append(fs, validateVolumeInitRates(c, kv)...)
	return fs
}

func validateConnTracking(c Class) rules.Findings {
	ct, u := c.Spec.ConnectionTracking, c.Unknown
	if ct == nil || u.Within(pathConnTracking) {
		return nil
	}
	if ct.TCPEstablishedTimeout == nil && ct.UDPStreamTimeout == nil && ct.UDPTimeout == nil {
		return rules.Findings{rules.New(ruleConnTracking, pathConnTracking,
			"connectionTracking sets no timeout: the API server rejects it (\"at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set\"). Set one, e.g. tcpEstablishedTimeout 432000 (EC2's default), or remove connectionTracking to keep EC2's defaults.").
			WithFix(rules.Fix{Field: pathConnTracking.Attr("tcp_established_timeout"), Value: "432000", Or: []rules.Fix{{Field: pathConnTracking, Remove: true}}})}
	}
	var fs rules.Findings
	for _, t := range []struct {
		attr     string
		v        *int32
		min, max int32
	}{
		{"tcp_established_timeout", ct.TCPEstablishedTimeout, 60, 432000},
		{"udp_stream_timeout", ct.UDPStreamTimeout, 60, 180},
		{"udp_timeout", ct.UDPTimeout, 30, 60},
	} {
		if t.v != nil && (*t.v < t.min || *t.v > t.max) {
			fs = append(fs, rules.New(ruleConnTracking, pathConnTracking.Attr(t.attr),
				"%d seconds: the CRD (and EC2) accept %s from %d to %d, so the API server rejects the EC2NodeClass. Write a value in that range, e.g. %d.", *t.v, fieldName(pathConnTracking.Attr(t.attr)), t.min, t.max, t.max))
		}
	}
	return fs
}

func validateCPUOptions(c Class) rules.Findings {
	o := c.Spec.CPUOptions
	p := pathCPUOptions.Attr("nested_virtualization")
	if o == nil || o.NestedVirtualization == nil || c.Unknown.Is(p) {
		return nil
	}
	if v := *o.NestedVirtualization; v != "enabled" && v != "disabled" {
		return rules.Findings{rules.New(ruleCPUOptions, p,
			"%q: the CRD accepts only \"enabled\" or \"disabled\" and the API server rejects anything else.", v).
			WithFix(rules.Fix{Value: `"enabled"`, Or: []rules.Fix{{Field: p, Value: `"disabled"`}}})}
	}
	return nil
}

var placementGroupIDRE = regexp.MustCompile(`^pg-[0-9a-z]+$`)

func validatePlacementGroup(c Class) rules.Findings {
	pg, u := c.Spec.PlacementGroupSelector, c.Unknown
	if pg == nil || u.Within(pathPlacementGroup) {
		return nil
	}
	switch {
	case pg.Name == nil && pg.ID == nil:
		return rules.Findings{rules.New(rulePlacementGroup, pathPlacementGroup,
			"placementGroupSelector selects nothing: the API server rejects it (\"expected at least one, got none, ['name', 'id']\"). Select the group by its name or its id.").
			WithFix(rules.Fix{Field: pathPlacementGroup.Attr("name"), Value: `"<placement group name>"`, Or: []rules.Fix{{Field: pathPlacementGroup.Attr("id"), Value: `"pg-..."`}}})}
	case pg.Name != nil && pg.ID != nil:
		return rules.Findings{rules.New(rulePlacementGroup, pathPlacementGroup,
			"placementGroupSelector sets both name %q and id %q: the API server rejects it (\"'name' and 'id' are mutually exclusive\"). Keep one of them.", *pg.Name, *pg.ID)}
	case pg.Name != nil && *pg.Name == "":
		return rules.Findings{rules.New(rulePlacementGroup, pathPlacementGroup.Attr("name"),
			"an empty name: the CRD requires at least one character. Write the placement group's name, or select it by id.")}
	case pg.ID != nil && !placementGroupIDRE.MatchString(*pg.ID):
		return rules.Findings{rules.New(rulePlacementGroup, pathPlacementGroup.Attr("id"),
			"%q does not match the CRD's pattern ^pg-[0-9a-z]+$ and the API server rejects it. Write the group id, e.g. \"pg-0123456789abcdef0\", or select it by name.", *pg.ID)}
	}
	return nil
}

type slot struct{ card, device int32 }

func validateNetworkInterfaces(c Class) rules.Findings {
	nis, u := c.Spec.NetworkInterfaces, c.Unknown
	if len(nis) == 0 || u.Within(pathNetworkInterfaces) {
		return nil
	}
	var fs rules.Findings
	if len(nis) > 150 {
		fs = append(fs, rules.New(ruleNetworkInterfaces, pathNetworkInterfaces,
			"%d network interfaces; the CRD allows at most 150.", len(nis)))
	}
	primary := false
	seen := map[slot]int{}
	efaCard := map[int32]int{}
	for i, ni := range nis {
		p := pathNetworkInterfaces.Index(i)
		if ni.InterfaceType != "interface" && ni.InterfaceType != "efa-only" {
			fs = append(fs, rules.New(ruleNetworkInterfaces, p.Attr("interface_type"),
				"%q: the CRD accepts \"interface\" (an ENA interface) or \"efa-only\" (an EFA-only interface). Karpenter adds EFA interfaces itself for pods requesting vpc.amazonaws.com/efa when networkInterfaces is unset.", ni.InterfaceType))
		}
		for _, idx := range []struct {
			attr string
			v    int32
		}{{"network_card_index", ni.NetworkCardIndex}, {"device_index", ni.DeviceIndex}} {
			if idx.v < 0 {
				fs = append(fs, rules.New(ruleNetworkInterfaces, p.Attr(idx.attr), "%d: the CRD requires %s >= 0.", idx.v, fieldName(p.Attr(idx.attr))))
			}
		}
		s := slot{ni.NetworkCardIndex, ni.DeviceIndex}
		if j, dup := seen[s]; dup {
			fs = append(fs, rules.New(ruleNetworkInterfaces, p,
				"network card %d, device %d is already used by networkInterfaces[%d]: the API server rejects the EC2NodeClass (\"networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card\"). Give each interface its own deviceIndex.", s.card, s.device, j))
		} else {
			seen[s] = i
		}
		if ni.InterfaceType == "efa-only" {
			if j, dup := efaCard[s.card]; dup {
				fs = append(fs, rules.New(ruleNetworkInterfaces, p,
					"a second efa-only interface on network card %d (the first is networkInterfaces[%d]): the CRD allows at most one EFA device per network card. Put it on another networkCardIndex.", s.card, j))
			} else {
				efaCard[s.card] = i
			}
		}
		primary = primary || (s == slot{} && ni.InterfaceType == "interface")
	}
	if !primary {
		fs = append(fs, rules.New(ruleNetworkInterfaces, pathNetworkInterfaces,
			"no primary interface: the API server rejects the EC2NodeClass (\"networkInterfaces must include a primary interface with interfaceType='interface'\"). Add one: network card 0, device 0, interfaceType interface.").
			WithFix(primaryInterface(pathNetworkInterfaces.Index(len(nis)))))
	}
	if len(nis) > 1 && c.Spec.AssociatePublicIPAddress != nil && *c.Spec.AssociatePublicIPAddress && !u.Is(pathPublicIP) {
		fs = append(fs, rules.New(rulePublicIPInterfaces, pathPublicIP,
			"true with %d networkInterfaces: EC2 rejects every launch (\"InvalidParameterCombination: The associatePublicIPAddress parameter cannot be specified when launching with multiple network interfaces\"), so no node is ever created. Remove associatePublicIPAddress and launch into subnets with MapPublicIpOnLaunch, or keep a single network interface.", len(nis)))
	}
	return fs
}

func validateVolumeInitRates(c Class, kv versions.Karpenter) rules.Findings {
	u := c.Unknown
	if u.Is(pathBlockDevices) {
		return nil
	}
	var fs rules.Findings
	for i, m := range c.Spec.BlockDeviceMappings {
		ep := pathBlockDevices.Index(i).Attr("ebs")
		p := ep.Attr("volume_initialization_rate")
		if m.EBS == nil || m.EBS.VolumeInitializationRate == nil || u.Is(p) {
			continue
		}
		rate := *m.EBS.VolumeInitializationRate
		switch {
		case !kv.AtLeast(volumeInitRateMinor, 0):
			fs = append(fs, rules.New(ruleVolumeInitRate, p, "%s", tooOld(fieldPath(p), volumeInitRateMinor, kv)).
				WithFix(rules.KarpenterVersion(fmt.Sprintf(`"1.%d"`, volumeInitRateMinor))))
		case rate < 100 || rate > 300:
			fs = append(fs, rules.New(ruleVolumeInitRate, p,
				"%d MiB/s: the CRD accepts 100 to 300 and the API server rejects the EC2NodeClass. Write a rate in that range, e.g. 100.", rate))
		case m.EBS.SnapshotID == "" && !u.Is(ep.Attr("snapshot_id")):
			fs = append(fs, rules.New(ruleVolumeInitRate, p,
				"%d MiB/s on %s without snapshotID: the rate is how fast EBS fills a volume from its snapshot, and EC2 accepts it only for volumes created from a snapshot (\"Only allowed if SnapshotID is set\"), so every launch with this class fails. Set snapshotID, or remove volumeInitializationRate.", rate, deviceName(m.DeviceName)))
		}
	}
	return fs
}

// primaryInterface is the fix that adds the primary network interface at p.
func primaryInterface(p rules.Path) rules.Fix {
	return rules.Fix{Field: p.Attr("network_card_index"), Value: "0", And: []rules.Fix{
		{Field: p.Attr("device_index"), Value: "0"},
		{Field: p.Attr("interface_type"), Value: `"interface"`},
	}}
}
