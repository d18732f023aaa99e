package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
)

type ec2NodeClassModel struct {
	Name                             types.String `tfsdk:"name"`
	Metadata                         types.Object `tfsdk:"metadata"`
	AMIFamily                        types.String `tfsdk:"ami_family"`
	AMISelectorTerms                 types.List   `tfsdk:"ami_selector_terms"`
	Role                             types.String `tfsdk:"role"`
	InstanceProfile                  types.String `tfsdk:"instance_profile"`
	SubnetSelectorTerms              types.List   `tfsdk:"subnet_selector_terms"`
	SecurityGroupSelectorTerms       types.List   `tfsdk:"security_group_selector_terms"`
	CapacityReservationSelectorTerms types.List   `tfsdk:"capacity_reservation_selector_terms"`
	Tags                             types.Map    `tfsdk:"tags"`
	Kubelet                          types.Object `tfsdk:"kubelet"`
	BlockDeviceMappings              types.List   `tfsdk:"block_device_mappings"`
	MetadataOptions                  types.Object `tfsdk:"metadata_options"`
	InstanceStorePolicy              types.String `tfsdk:"instance_store_policy"`
	IPPrefixCount                    types.Int64  `tfsdk:"ip_prefix_count"`
	Context                          types.String `tfsdk:"context"`
	NetworkInterfaces                types.List   `tfsdk:"network_interfaces"`
	PlacementGroupSelector           types.Object `tfsdk:"placement_group_selector"`
	ConnectionTracking               types.Object `tfsdk:"connection_tracking"`
	CPUOptions                       types.Object `tfsdk:"cpu_options"`
	AssociatePublicIPAddress         types.Bool   `tfsdk:"associate_public_ip_address"`
	DetailedMonitoring               types.Bool   `tfsdk:"detailed_monitoring"`
	UserData                         types.String `tfsdk:"user_data"`
	Bootstrap                        types.Object `tfsdk:"bootstrap"`
	PinAMIs                          types.Bool   `tfsdk:"pin_amis"`
	Manifest                         types.String `tfsdk:"manifest"`
	AMIs                             types.Map    `tfsdk:"amis"`
	NodeClass                        types.Object `tfsdk:"node_class"`
	Subnets                          types.Map    `tfsdk:"subnets"`
	SecurityGroups                   types.Map    `tfsdk:"security_groups"`
	CapacityReservations             types.Map    `tfsdk:"capacity_reservations"`
	StatusConditions                 types.Map    `tfsdk:"status_conditions"`
	AcknowledgedWarnings             types.List   `tfsdk:"acknowledged_warnings"`
	DriftHash                        types.String `tfsdk:"drift_hash"`
	DriftHashVersion                 types.String `tfsdk:"drift_hash_version"`
}

// classFromModel converts the configuration into the domain model,
// recording what is unknown.
func classFromModel(m ec2NodeClassModel) nodeclass.Class {
	r := newReader()
	c := nodeclass.Class{
		Name:    r.str(m.Name, rules.Root("name")),
		Family:  r.str(m.AMIFamily, rules.Root("ami_family")),
		PinAMIs: r.boolean(m.PinAMIs, rules.Root("pin_amis")),
	}
	c.Labels, c.Annotations = objectMetadata(r, m.Metadata)
	terms, ok := termsFromList(m.AMISelectorTerms)
	if !ok {
		r.unknown.Add(ami.TermsPath)
	}
	for i, t := range terms {
		for f := range t.Unknown {
			r.unknown.Add(ami.TermsPath.Index(i).Attr(f))
		}
	}
	c.Terms = terms

	s := &c.Spec
	s.Role = r.str(m.Role, rules.Root("role"))
	s.InstanceProfile = r.str(m.InstanceProfile, rules.Root("instance_profile"))
	p := rules.Root("subnet_selector_terms")
	for i, o := range r.objects(m.SubnetSelectorTerms, p) {
		tp := p.Index(i)
		s.SubnetSelectorTerms = append(s.SubnetSelectorTerms, manifest.SubnetSelectorTerm{ID: r.str(o["id"], tp.Attr("id")), Tags: r.strMap(o["tags"], tp.Attr("tags"))})
	}
	p = rules.Root("security_group_selector_terms")
	for i, o := range r.objects(m.SecurityGroupSelectorTerms, p) {
		tp := p.Index(i)
		s.SecurityGroupSelectorTerms = append(s.SecurityGroupSelectorTerms, manifest.SecurityGroupSelectorTerm{
			ID: r.str(o["id"], tp.Attr("id")), Name: r.str(o["name"], tp.Attr("name")), Tags: r.strMap(o["tags"], tp.Attr("tags")),
		})
	}
	p = rules.Root("capacity_reservation_selector_terms")
	for i, o := range r.objects(m.CapacityReservationSelectorTerms, p) {
		tp := p.Index(i)
		s.CapacityReservationSelectorTerms = append(s.CapacityReservationSelectorTerms, manifest.CapacityReservationSelectorTerm{
			ID: r.str(o["id"], tp.Attr("id")), OwnerID: r.str(o["owner_id"], tp.Attr("owner_id")),
			Tags: r.strMap(o["tags"], tp.Attr("tags")), InstanceMatchCriteria: r.str(o["instance_match_criteria"], tp.Attr("instance_match_criteria")),
		})
	}
	s.Tags = r.strMap(m.Tags, rules.Root("tags"))
	s.Kubelet = kubeletFromObject(r, m.Kubelet, rules.Root("kubelet"))
	p = rules.Root("block_device_mappings")
	for i, o := range r.objects(m.BlockDeviceMappings, p) {
		tp := p.Index(i)
		bdm := manifest.BlockDeviceMapping{DeviceName: r.str(o["device_name"], tp.Attr("device_name")), RootVolume: r.boolean(o["root_volume"], tp.Attr("root_volume"))}
		ep := tp.Attr("ebs")
		if e := r.object(o["ebs"], ep); e != nil {
			bdm.EBS = &manifest.BlockDevice{
				VolumeSize: r.str(e["volume_size"], ep.Attr("volume_size")), VolumeType: r.str(e["volume_type"], ep.Attr("volume_type")),
				IOPS: r.int64Ptr(e["iops"], ep.Attr("iops")), Throughput: r.int64Ptr(e["throughput"], ep.Attr("throughput")),
				Encrypted: r.boolPtr(e["encrypted"], ep.Attr("encrypted")), KMSKeyID: r.str(e["kms_key_id"], ep.Attr("kms_key_id")),
				DeleteOnTermination:      r.boolPtr(e["delete_on_termination"], ep.Attr("delete_on_termination")),
				SnapshotID:               r.str(e["snapshot_id"], ep.Attr("snapshot_id")),
				VolumeInitializationRate: r.int32Ptr(e["volume_initialization_rate"], ep.Attr("volume_initialization_rate")),
			}
		}
		s.BlockDeviceMappings = append(s.BlockDeviceMappings, bdm)
	}
	p = rules.Root("metadata_options")
	if o := r.object(m.MetadataOptions, p); o != nil {
		s.MetadataOptions = &manifest.MetadataOptions{
			HTTPEndpoint: r.str(o["http_endpoint"], p.Attr("http_endpoint")), HTTPProtocolIPv6: r.str(o["http_protocol_ipv6"], p.Attr("http_protocol_ipv6")),
			HTTPPutResponseHopLimit: r.int64Ptr(o["http_put_response_hop_limit"], p.Attr("http_put_response_hop_limit")),
			HTTPTokens:              r.str(o["http_tokens"], p.Attr("http_tokens")),
		}
	}
	s.InstanceStorePolicy = r.str(m.InstanceStorePolicy, rules.Root("instance_store_policy"))
	s.IPPrefixCount = r.int32Ptr(m.IPPrefixCount, rules.Root("ip_prefix_count"))
	s.Context = r.strPtr(m.Context, rules.Root("context"))
	p = rules.Root("network_interfaces")
	for i, o := range r.objects(m.NetworkInterfaces, p) {
		ip := p.Index(i)
		ni := manifest.NetworkInterface{InterfaceType: r.str(o["interface_type"], ip.Attr("interface_type"))}
		if v := r.int32Ptr(o["network_card_index"], ip.Attr("network_card_index")); v != nil {
			ni.NetworkCardIndex = *v
		}
		if v := r.int32Ptr(o["device_index"], ip.Attr("device_index")); v != nil {
			ni.DeviceIndex = *v
		}
		s.NetworkInterfaces = append(s.NetworkInterfaces, ni)
	}
	p = rules.Root("placement_group_selector")
	if o := r.object(m.PlacementGroupSelector, p); o != nil {
		s.PlacementGroupSelector = &manifest.PlacementGroupSelector{Name: r.strPtr(o["name"], p.Attr("name")), ID: r.strPtr(o["id"], p.Attr("id"))}
	}
	p = rules.Root("connection_tracking")
	if o := r.object(m.ConnectionTracking, p); o != nil {
		s.ConnectionTracking = &manifest.ConnectionTracking{
			TCPEstablishedTimeout: r.int32Ptr(o["tcp_established_timeout"], p.Attr("tcp_established_timeout")),
			UDPStreamTimeout:      r.int32Ptr(o["udp_stream_timeout"], p.Attr("udp_stream_timeout")),
			UDPTimeout:            r.int32Ptr(o["udp_timeout"], p.Attr("udp_timeout")),
		}
	}
	p = rules.Root("cpu_options")
	if o := r.object(m.CPUOptions, p); o != nil {
		s.CPUOptions = &manifest.CPUOptions{NestedVirtualization: r.strPtr(o["nested_virtualization"], p.Attr("nested_virtualization"))}
	}
	s.AssociatePublicIPAddress = r.boolPtr(m.AssociatePublicIPAddress, rules.Root("associate_public_ip_address"))
	s.DetailedMonitoring = r.boolPtr(m.DetailedMonitoring, rules.Root("detailed_monitoring"))
	s.UserData = r.strPtr(m.UserData, rules.Root("user_data"))
	p = rules.Root("bootstrap")
	if o := r.object(m.Bootstrap, p); o != nil {
		b := &userdata.Bootstrap{
			Format:               userdata.BootstrapFormat(r.str(o["format"], p.Attr("format"))),
			ClusterName:          r.str(o["cluster_name"], p.Attr("cluster_name")),
			APIServerEndpoint:    r.str(o["api_server_endpoint"], p.Attr("api_server_endpoint")),
			CertificateAuthority: r.str(o["certificate_authority"], p.Attr("certificate_authority")),
			ServiceCIDR:          r.str(o["service_cidr"], p.Attr("service_cidr")),
			ClusterDNS:           r.str(o["cluster_dns"], p.Attr("cluster_dns")),
			NodeLabels:           r.strMap(o["node_labels"], p.Attr("node_labels")),
			KubeletExtraArgs:     r.strList(o["kubelet_extra_args"], p.Attr("kubelet_extra_args")),
			PreBootstrapScript:   r.str(o["pre_bootstrap_script"], p.Attr("pre_bootstrap_script")),
			PostBootstrapScript:  r.str(o["post_bootstrap_script"], p.Attr("post_bootstrap_script")),
		}
		b.RegisterWithTaints = taintsFromList(r, o["register_with_taints"], p.Attr("register_with_taints"))
		c.Bootstrap = b
	} else if m.Bootstrap.IsUnknown() {
		c.Bootstrap = &userdata.Bootstrap{}
	}
	c.Unknown = r.unknown
	return c
}

func taintsFromList(r *reader, v attr.Value, p rules.Path) []taints.Taint {
	var out []taints.Taint
	for i, o := range r.objects(v, p) {
		tp := p.Index(i)
		out = append(out, taints.Taint{Key: r.str(o["key"], tp.Attr("key")), Value: r.str(o["value"], tp.Attr("value")), Effect: r.str(o["effect"], tp.Attr("effect"))})
	}
	return out
}

func kubeletFromObject(r *reader, v attr.Value, p rules.Path) *manifest.Kubelet {
	o := r.object(v, p)
	if o == nil {
		return nil
	}
	return &manifest.Kubelet{
		MaxPods:                     r.int32Ptr(o["max_pods"], p.Attr("max_pods")),
		PodsPerCore:                 r.int32Ptr(o["pods_per_core"], p.Attr("pods_per_core")),
		SystemReserved:              r.strMap(o["system_reserved"], p.Attr("system_reserved")),
		KubeReserved:                r.strMap(o["kube_reserved"], p.Attr("kube_reserved")),
		EvictionHard:                r.strMap(o["eviction_hard"], p.Attr("eviction_hard")),
		EvictionSoft:                r.strMap(o["eviction_soft"], p.Attr("eviction_soft")),
		EvictionSoftGracePeriod:     r.strMap(o["eviction_soft_grace_period"], p.Attr("eviction_soft_grace_period")),
		EvictionMaxPodGracePeriod:   r.int32Ptr(o["eviction_max_pod_grace_period"], p.Attr("eviction_max_pod_grace_period")),
		ImageGCHighThresholdPercent: r.int32Ptr(o["image_gc_high_threshold_percent"], p.Attr("image_gc_high_threshold_percent")),
		ImageGCLowThresholdPercent:  r.int32Ptr(o["image_gc_low_threshold_percent"], p.Attr("image_gc_low_threshold_percent")),
		CPUCFSQuota:                 r.boolPtr(o["cpu_cfs_quota"], p.Attr("cpu_cfs_quota")),
		ClusterDNS:                  r.strList(o["cluster_dns"], p.Attr("cluster_dns")),
	}
}

// objectMetadata reads the metadata block: the object's own labels and
// annotations.
func objectMetadata(r *reader, v attr.Value) (labels, annotations map[string]string) {
	p := rules.Root("metadata")
	o := r.object(v, p)
	if o == nil {
		return nil, nil
	}
	return r.strMap(o["labels"], p.Attr("labels")), r.strMap(o["annotations"], p.Attr("annotations"))
}
