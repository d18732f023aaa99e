package crd

import "testing"

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"amiSelectorTerms":            "ami_selector_terms",
		"ownerID":                     "owner_id",
		"kmsKeyID":                    "kms_key_id",
		"snapshotID":                  "snapshot_id",
		"subnetIDs":                   "subnet_ids",
		"clusterDNS":                  "cluster_dns",
		"httpProtocolIPv6":            "http_protocol_ipv6",
		"associatePublicIPAddress":    "associate_public_ip_address",
		"imageGCHighThresholdPercent": "image_gc_high_threshold_percent",
		"imageGCLowThresholdPercent":  "image_gc_low_threshold_percent",
		"cpuCFSQuota":                 "cpu_cfs_quota",
		"httpPutResponseHopLimit":     "http_put_response_hop_limit",
		"ssmParameter":                "ssm_parameter",
		"evictionSoftGracePeriod":     "eviction_soft_grace_period",
		"minValues":                   "min_values",
		"role":                        "role",
		"podsPerCore":                 "pods_per_core",
		"volumeSize":                  "volume_size",
		"iops":                        "iops",
		"XYZValue":                    "xyz_value",
		"ipv4Prefix":                  "ipv4_prefix",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerraformPath(t *testing.T) {
	for _, tc := range []struct {
		kind      *Kind
		crd, want string
	}{
		{EC2NodeClass, "metadata.name", "name"},
		{EC2NodeClass, "metadata.labels", ""},
		{EC2NodeClass, "apiVersion", ""},
		{EC2NodeClass, "spec", ""},
		{EC2NodeClass, "", ""},
		{EC2NodeClass, "spec.amiFamily", "ami_family"},
		{EC2NodeClass, "spec.amiSelectorTerms", "ami_selector_terms"},
		{EC2NodeClass, "spec.amiSelectorTerms[0].alias", "ami_selector_terms[0].alias"},
		{EC2NodeClass, "spec.amiSelectorTerms[3].tags[Name]", `ami_selector_terms[3].tags["Name"]`},
		{EC2NodeClass, "spec.subnetSelectorTerms[2].tags.kubernetes.io/role/internal-elb", `subnet_selector_terms[2].tags["kubernetes.io/role/internal-elb"]`},
		{EC2NodeClass, "spec.securityGroupSelectorTerms[1].name", "security_group_selector_terms[1].name"},
		{EC2NodeClass, "spec.capacityReservationSelectorTerms[0].ownerID", "capacity_reservation_selector_terms[0].owner_id"},
		{EC2NodeClass, "spec.capacityReservationSelectorTerms[1].instanceMatchCriteria", "capacity_reservation_selector_terms[1].instance_match_criteria"},
		{EC2NodeClass, "spec.role", "role"},
		{EC2NodeClass, "spec.instanceProfile", "instance_profile"},
		{EC2NodeClass, "spec.tags", "tags"},
		{EC2NodeClass, "spec.tags[team]", `tags["team"]`},
		{EC2NodeClass, "spec.kubelet", "kubelet"},
		{EC2NodeClass, "spec.kubelet.maxPods", "kubelet.max_pods"},
		{EC2NodeClass, "spec.kubelet.evictionHard[memory.available]", `kubelet.eviction_hard["memory.available"]`},
		{EC2NodeClass, "spec.kubelet.evictionHard.memory.available", `kubelet.eviction_hard["memory.available"]`},
		{EC2NodeClass, "spec.kubelet.imageGCHighThresholdPercent", "kubelet.image_gc_high_threshold_percent"},
		{EC2NodeClass, "spec.kubelet.cpuCFSQuota", "kubelet.cpu_cfs_quota"},
		{EC2NodeClass, "spec.kubelet.clusterDNS", "kubelet.cluster_dns"},
		{EC2NodeClass, "spec.kubelet.clusterDNS[1]", "kubelet.cluster_dns[1]"},
		{EC2NodeClass, "spec.kubelet.registerWithTaints", "kubelet"},
		{EC2NodeClass, "spec.blockDeviceMappings[0].ebs.volumeSize", "block_device_mappings[0].ebs.volume_size"},
		{EC2NodeClass, "spec.blockDeviceMappings[1].ebs.kmsKeyID", "block_device_mappings[1].ebs.kms_key_id"},
		{EC2NodeClass, "spec.blockDeviceMappings[1].ebs.snapshotID", "block_device_mappings[1].ebs.snapshot_id"},
		{EC2NodeClass, "spec.blockDeviceMappings[1].ebs.volumeInitializationRate", "block_device_mappings[1].ebs.volume_initialization_rate"},
		{EC2NodeClass, "spec.blockDeviceMappings[0].rootVolume", "block_device_mappings[0].root_volume"},
		{EC2NodeClass, "spec.metadataOptions.httpProtocolIPv6", "metadata_options.http_protocol_ipv6"},
		{EC2NodeClass, "spec.metadataOptions.httpPutResponseHopLimit", "metadata_options.http_put_response_hop_limit"},
		{EC2NodeClass, "spec.instanceStorePolicy", "instance_store_policy"},
		{EC2NodeClass, "spec.associatePublicIPAddress", "associate_public_ip_address"},
		{EC2NodeClass, "spec.detailedMonitoring", "detailed_monitoring"},
		{EC2NodeClass, "spec.userData", "user_data"},
		{EC2NodeClass, "spec.networkInterfaces[0].deviceIndex", "network_interfaces[0].device_index"},
		{EC2NodeClass, "spec.placementGroupSelector.id", "placement_group_selector.id"},
		{EC2NodeClass, "spec.connectionTracking.tcpEstablishedTimeout", "connection_tracking.tcp_established_timeout"},
		{EC2NodeClass, "spec.amiSelectorTerms[x].alias", "ami_selector_terms"},
		{EC2NodeClass, "spec.amiSelectorTerms.alias", "ami_selector_terms"},

		{NodePool, "metadata.name", "name"},
		{NodePool, "spec", ""},
		{NodePool, "spec.template.metadata.labels", "labels"},
		{NodePool, "spec.template.metadata.labels.team", `labels["team"]`},
		{NodePool, "spec.template.metadata.labels[example.com/team]", `labels["example.com/team"]`},
		{NodePool, "spec.template.metadata.annotations", "annotations"},
		{NodePool, "spec.template.spec", ""},
		{NodePool, "spec.template.spec.requirements", "requirements"},
		{NodePool, "spec.template.spec.requirements[1].minValues", "requirements[1].min_values"},
		{NodePool, "spec.template.spec.requirements[0].values[2]", "requirements[0].values[2]"},
		{NodePool, "spec.template.spec.taints[0].effect", "taints[0].effect"},
		{NodePool, "spec.template.spec.startupTaints[1].key", "startup_taints[1].key"},
		{NodePool, "spec.template.spec.expireAfter", "expire_after"},
		{NodePool, "spec.template.spec.terminationGracePeriod", "termination_grace_period"},
		{NodePool, "spec.template.spec.nodeClassRef", "node_class"},
		{NodePool, "spec.template.spec.nodeClassRef.name", "node_class.name"},
		{NodePool, "spec.template.spec.kubelet", ""},
		{NodePool, "spec.disruption", "disruption"},
		{NodePool, "spec.disruption.consolidateAfter", "disruption.consolidate_after"},
		{NodePool, "spec.disruption.consolidationPolicy", "disruption.consolidation_policy"},
		{NodePool, "spec.disruption.budgets[0].nodes", "disruption.budgets[0].nodes"},
		{NodePool, "spec.disruption.budgets[1].reasons[0]", "disruption.budgets[1].reasons[0]"},
		{NodePool, "spec.limits", "limits"},
		{NodePool, "spec.limits.nvidia.com/gpu", `limits["nvidia.com/gpu"]`},
		{NodePool, "spec.weight", "weight"},
		{NodePool, "spec.replicas", "replicas"},
	} {
		if got := tc.kind.TerraformPath(tc.crd).String(); got != tc.want {
			t.Errorf("%s %q -> %q, want %q", tc.kind.Name(), tc.crd, got, tc.want)
		}
	}
}
