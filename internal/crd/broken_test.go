package crd

import (
	"context"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// broken is a hand-broken manifest and the rejection the API server gives:
// the CRD field, the message verbatim, the error type, the offending value
// (nil: none printed) and the Terraform attribute the finding lands on.
type broken struct {
	name   string
	kind   *Kind
	obj    any
	raw    func(map[string]any) // edits beyond what the model can express
	field  string
	reason string
	detail string
	value  any
	tfPath string
}

func brokenNodeClasses() []broken {
	nc := func(name string, edit func(*manifest.EC2NodeClassSpec), field, reason, detail string, value any, tf string) broken {
		return broken{name: name, kind: EC2NodeClass, obj: nodeClass(edit), field: field, reason: reason, detail: detail, value: value, tfPath: tf}
	}
	return []broken{
		nc("alias and a second term (CEL)", func(s *manifest.EC2NodeClassSpec) {
			s.AMISelectorTerms = append(s.AMISelectorTerms, manifest.AMISelectorTerm{ID: "ami-0123456789abcdef0"})
		}, "spec.amiSelectorTerms", "Invalid", "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms", nil, "ami_selector_terms"),
		nc("id and name in one term (CEL)", func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "AL2023"
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{ID: "ami-0123456789abcdef0", Name: "my-ami"}}
		}, "spec.amiSelectorTerms", "Invalid", "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms", nil, "ami_selector_terms"),
		nc("owner-only term", func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "AL2023"
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Owner: "amazon"}}
		}, "spec.amiSelectorTerms", "Invalid", "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']", nil, "ami_selector_terms"),
		nc("no amiFamily without alias", func(s *manifest.EC2NodeClassSpec) {
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{ID: "ami-0123456789abcdef0"}}
		}, "spec", "Invalid", "must specify amiFamily if amiSelectorTerms does not contain an alias", nil, ""),
		nc("alias family mismatch", func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "Bottlerocket"
		}, "spec", "Invalid", "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias", nil, ""),
		nc("bad alias format", func(s *manifest.EC2NodeClassSpec) {
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "al2023"}}
		}, "spec.amiSelectorTerms[0].alias", "Invalid", "'alias' is improperly formatted, must match the format 'family@version'", "al2023", "ami_selector_terms[0].alias"),
		nc("role and instanceProfile both set", func(s *manifest.EC2NodeClassSpec) {
			s.InstanceProfile = "KarpenterNodeInstanceProfile"
		}, "spec", "Invalid", "must specify exactly one of ['role', 'instanceProfile']", nil, ""),
		nc("empty selector tag value", func(s *manifest.EC2NodeClassSpec) {
			s.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": ""}}}
		}, "spec.subnetSelectorTerms[0].tags", "Invalid", "empty tag keys or values aren't supported", nil, "subnet_selector_terms[0].tags"),
		nc("empty tag key", func(s *manifest.EC2NodeClassSpec) {
			s.Tags = map[string]string{"": "x"}
		}, "spec.tags", "Invalid", "empty tag keys aren't supported", nil, "tags"),
		nc("restricted tag kubernetes.io/cluster/", func(s *manifest.EC2NodeClassSpec) {
			s.Tags = map[string]string{"kubernetes.io/cluster/x": "owned"}
		}, "spec.tags", "Invalid", "tag contains a restricted tag matching kubernetes.io/cluster/", nil, "tags"),
		nc("two rootVolume mappings", func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{
				{DeviceName: "/dev/xvda", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "20Gi"}},
				{DeviceName: "/dev/xvdb", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "100Gi"}},
			}
		}, "spec.blockDeviceMappings", "Invalid", "must have only one blockDeviceMappings with rootVolume", nil, "block_device_mappings"),
		nc("ebs without snapshotID or volumeSize", func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeType: "gp3"}}}
		}, "spec.blockDeviceMappings[0].ebs", "Invalid", "snapshotID or volumeSize must be defined", nil, "block_device_mappings[0].ebs"),
		nc("bad volumeSize pattern", func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "100GB"}}}
		}, "spec.blockDeviceMappings[0].ebs.volumeSize", "Invalid",
			`spec.blockDeviceMappings[0].ebs.volumeSize in body should match '^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$'`,
			"100GB", "block_device_mappings[0].ebs.volume_size"),
		nc("imageGC high <= low", func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{ImageGCHighThresholdPercent: ptr(int32(80)), ImageGCLowThresholdPercent: ptr(int32(80))}
		}, "spec.kubelet", "Invalid", "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent", nil, "kubelet"),
		nc("imageGC over 100", func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{ImageGCHighThresholdPercent: ptr(int32(101))}
		}, "spec.kubelet.imageGCHighThresholdPercent", "Invalid", "spec.kubelet.imageGCHighThresholdPercent in body should be less than or equal to 100", int64(101), "kubelet.image_gc_high_threshold_percent"),
		nc("evictionSoft without grace period", func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{EvictionSoft: map[string]string{"memory.available": "500Mi"}}
		}, "spec.kubelet", "Invalid",
			// The rule reads the missing map: the server reports the CEL
			// evaluation error, then the rule's message (the CRD's
			// x-kubernetes-validations entry has the message alone).
			"no such key: evictionSoftGracePeriod evaluating rule: evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod", "object", "kubelet"),
		nc("evictionHard bad key", func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{EvictionHard: map[string]string{"memory.free": "5%"}}
		}, "spec.kubelet.evictionHard", "Invalid", "valid keys for evictionHard are ['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree','pid.available']", nil, "kubelet.eviction_hard"),
		nc("evictionHard bad value (map key with dots)", func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{EvictionHard: map[string]string{"memory.available": "five percent"}}
		}, "spec.kubelet.evictionHard.memory.available", "Invalid",
			`spec.kubelet.evictionHard.memory.available in body should match '^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%||(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?)$'`,
			"five percent", `kubelet.eviction_hard["memory.available"]`),
		nc("negative kubeReserved", func(s *manifest.EC2NodeClassSpec) {
			s.Kubelet = &manifest.Kubelet{KubeReserved: map[string]string{"cpu": "-100m"}}
		}, "spec.kubelet.kubeReserved", "Invalid", "kubeReserved value cannot be a negative resource quantity", nil, "kubelet.kube_reserved"),
		nc("metadataOptions hop limit 0", func(s *manifest.EC2NodeClassSpec) {
			s.MetadataOptions = &manifest.MetadataOptions{HTTPPutResponseHopLimit: ptr(int64(0))}
		}, "spec.metadataOptions.httpPutResponseHopLimit", "Invalid", "spec.metadataOptions.httpPutResponseHopLimit in body should be greater than or equal to 1", int64(0), "metadata_options.http_put_response_hop_limit"),
		nc("httpProtocolIPv6 enum", func(s *manifest.EC2NodeClassSpec) {
			s.MetadataOptions = &manifest.MetadataOptions{HTTPProtocolIPv6: "on"}
		}, "spec.metadataOptions.httpProtocolIPv6", "NotSupported", `supported values: "enabled", "disabled"`, "on", "metadata_options.http_protocol_ipv6"),
		nc("invalid amiFamily enum", func(s *manifest.EC2NodeClassSpec) {
			s.AMIFamily = "Ubuntu"
		}, "spec.amiFamily", "NotSupported", `supported values: "AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"`, "Ubuntu", "ami_family"),
		nc("capacity reservation ownerID pattern", func(s *manifest.EC2NodeClassSpec) {
			s.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{{OwnerID: "1234", Tags: map[string]string{"a": "b"}}}
		}, "spec.capacityReservationSelectorTerms[0].ownerID", "Invalid", "spec.capacityReservationSelectorTerms[0].ownerID in body should match '^[0-9]{12}$'", "1234", "capacity_reservation_selector_terms[0].owner_id"),
		nc("capacity reservation owner only", func(s *manifest.EC2NodeClassSpec) {
			s.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{{OwnerID: "123456789012"}}
		}, "spec.capacityReservationSelectorTerms", "Invalid", "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']", nil, "capacity_reservation_selector_terms"),
		nc("networkInterfaces without a primary (CEL)", func(s *manifest.EC2NodeClassSpec) {
			s.NetworkInterfaces = []manifest.NetworkInterface{{NetworkCardIndex: 1, InterfaceType: "efa-only"}}
		}, "spec.networkInterfaces", "Invalid", "networkInterfaces must include a primary interface with interfaceType='interface'", nil, "network_interfaces"),
		nc("connectionTracking udpTimeout range", func(s *manifest.EC2NodeClassSpec) {
			s.ConnectionTracking = &manifest.ConnectionTracking{UDPTimeout: ptr(int32(61))}
		}, "spec.connectionTracking.udpTimeout", "Invalid", "spec.connectionTracking.udpTimeout in body should be less than or equal to 60", int64(61), "connection_tracking.udp_timeout"),
		nc("placementGroupSelector name and id (CEL)", func(s *manifest.EC2NodeClassSpec) {
			s.PlacementGroupSelector = &manifest.PlacementGroupSelector{Name: ptr("pg"), ID: ptr("pg-0abc")}
		}, "spec.placementGroupSelector", "Invalid", "'name' and 'id' are mutually exclusive", nil, "placement_group_selector"),
		nc("empty role", func(s *manifest.EC2NodeClassSpec) {
			s.Role = ""
		}, "spec", "Invalid", "must specify exactly one of ['role', 'instanceProfile']", nil, ""),
		nc("no subnet terms", func(s *manifest.EC2NodeClassSpec) {
			s.SubnetSelectorTerms = nil
		}, "spec.subnetSelectorTerms", "Required", "", nil, "subnet_selector_terms"),
		{name: "name not a DNS subdomain", kind: EC2NodeClass, obj: nodeClass(nil),
			raw:   func(o map[string]any) { o["metadata"].(map[string]any)["name"] = "Default_Class" },
			field: "metadata.name", reason: "Invalid", value: "Default_Class", tfPath: "name",
			detail: "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
		{name: "wrong apiVersion", kind: EC2NodeClass, obj: nodeClass(nil),
			raw:   func(o map[string]any) { o["apiVersion"] = "karpenter.k8s.aws/v1beta1" },
			field: "apiVersion", reason: "Invalid", detail: "must be karpenter.k8s.aws/v1", value: "karpenter.k8s.aws/v1beta1", tfPath: ""},
	}
}

func brokenNodePools() []broken {
	np := func(name string, edit func(*manifest.NodePoolSpec), field, reason, detail string, value any, tf string) broken {
		return broken{name: name, kind: NodePool, obj: nodePool(edit), field: field, reason: reason, detail: detail, value: value, tfPath: tf}
	}
	labels := func(l map[string]string) func(*manifest.NodePoolSpec) {
		return func(s *manifest.NodePoolSpec) { s.Template.Metadata = &manifest.TemplateMeta{Labels: l} }
	}
	req := func(r ...manifest.Requirement) func(*manifest.NodePoolSpec) {
		return func(s *manifest.NodePoolSpec) { s.Template.Spec.Requirements = r }
	}
	arch := manifest.Requirement{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}
	return []broken{
		np("label domain karpenter.sh", labels(map[string]string{"karpenter.sh/foo": "x"}),
			"spec.template.metadata.labels", "Invalid", `label domain "karpenter.sh" is restricted`, nil, "labels"),
		np("label domain karpenter.k8s.aws", labels(map[string]string{"karpenter.k8s.aws/foo": "x"}),
			"spec.template.metadata.labels", "Invalid", `label domain "karpenter.k8s.aws" is restricted`, nil, "labels"),
		np("label hostname", labels(map[string]string{"kubernetes.io/hostname": "x"}),
			"spec.template.metadata.labels", "Invalid", `label "kubernetes.io/hostname" is restricted`, nil, "labels"),
		np("label value pattern", labels(map[string]string{"team": "a b"}),
			"spec.template.metadata.labels.team", "Invalid", "spec.template.metadata.labels.team in body should match '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$'", "a b", `labels["team"]`),
		np("requirement In without values", req(manifest.Requirement{Key: "kubernetes.io/arch", Operator: "In"}),
			"spec.template.spec.requirements", "Invalid",
			// As with evictionSoft: the rule reads the absent values, so the
			// server prefixes the CEL error (the CRD's rule has the message
			// alone).
			"no such key: values evaluating rule: requirements with operator 'In' must have a value defined", "array", "requirements"),
		np("requirement Gt with non-integer", req(arch, manifest.Requirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Gt", Values: []string{"four"}}),
			"spec.template.spec.requirements", "Invalid", "type conversion error from 'string' to 'int' evaluating rule: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value", "array", "requirements"),
		np("requirement Lt with two values", req(arch, manifest.Requirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Lt", Values: []string{"4", "8"}}),
			"spec.template.spec.requirements", "Invalid", "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value", nil, "requirements"),
		np("minValues > values", req(arch, manifest.Requirement{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5"}, MinValues: ptr(2)}),
			"spec.template.spec.requirements", "Invalid", "requirements with 'minValues' must have at least that many values specified in the 'values' field", nil, "requirements"),
		np("minValues 0", req(arch, manifest.Requirement{Key: "karpenter.k8s.aws/instance-family", Operator: "Exists", MinValues: ptr(0)}),
			"spec.template.spec.requirements[1].minValues", "Invalid", "spec.template.spec.requirements[1].minValues in body should be greater than or equal to 1", int64(0), "requirements[1].min_values"),
		np("operator enum", req(manifest.Requirement{Key: "kubernetes.io/arch", Operator: "in", Values: []string{"amd64"}}),
			"spec.template.spec.requirements[0].operator", "NotSupported", `supported values: "Gte", "Lte", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`, "in", "requirements[0].operator"),
		np("requirement key restricted", req(arch, manifest.Requirement{Key: "karpenter.sh/nodepool", Operator: "In", Values: []string{"x"}}),
			"spec.template.spec.requirements[1].key", "Invalid", `label "karpenter.sh/nodepool" is restricted`, "karpenter.sh/nodepool", "requirements[1].key"),
		np("taint effect enum", func(s *manifest.NodePoolSpec) {
			s.Template.Spec.StartupTaints = []manifest.Taint{{Key: "example.com/a", Effect: "NoExecution"}}
		}, "spec.template.spec.startupTaints[0].effect", "NotSupported", `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`, "NoExecution", "startup_taints[0].effect"),
		np("budget schedule without duration", func(s *manifest.NodePoolSpec) {
			s.Disruption = &manifest.Disruption{ConsolidateAfter: ptr("0s"), Budgets: []manifest.Budget{{Nodes: "0", Schedule: ptr("@daily")}}}
		}, "spec.disruption.budgets", "Invalid", "'schedule' must be set with 'duration'", nil, "disruption.budgets"),
		np("budget nodes pattern", func(s *manifest.NodePoolSpec) {
			s.Disruption = &manifest.Disruption{ConsolidateAfter: ptr("0s"), Budgets: []manifest.Budget{{Nodes: "ten"}}}
		}, "spec.disruption.budgets[0].nodes", "Invalid", "spec.disruption.budgets[0].nodes in body should match '^((100|[0-9]{1,2})%|[0-9]+)$'", "ten", "disruption.budgets[0].nodes"),
		np("disruption without consolidateAfter", func(s *manifest.NodePoolSpec) {
			s.Disruption = &manifest.Disruption{ConsolidationPolicy: "WhenEmpty"}
		}, "spec.disruption.consolidateAfter", "Required", "", nil, "disruption.consolidate_after"),
		np("consolidateAfter pattern", func(s *manifest.NodePoolSpec) {
			s.Disruption = &manifest.Disruption{ConsolidateAfter: ptr("5 minutes")}
		}, "spec.disruption.consolidateAfter", "Invalid", "spec.disruption.consolidateAfter in body should match '^(([0-9]+(s|m|h))+|Never)$'", "5 minutes", "disruption.consolidate_after"),
		np("expireAfter pattern", func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "30d" },
			"spec.template.spec.expireAfter", "Invalid", "spec.template.spec.expireAfter in body should match '^(([0-9]+(s|m|h))+|Never)$'", "30d", "expire_after"),
		np("terminationGracePeriod Never", func(s *manifest.NodePoolSpec) { s.Template.Spec.TerminationGracePeriod = "Never" },
			"spec.template.spec.terminationGracePeriod", "Invalid", "spec.template.spec.terminationGracePeriod in body should match '^([0-9]+(s|m|h))+$'", "Never", "termination_grace_period"),
		np("weight 0", func(s *manifest.NodePoolSpec) { s.Weight = ptr(int32(0)) },
			"spec.weight", "Invalid", "spec.weight in body should be greater than or equal to 1", int64(0), "weight"),
		np("static pool with weight", func(s *manifest.NodePoolSpec) { s.Replicas, s.Weight = ptr(int64(2)), ptr(int32(10)) },
			"spec", "Invalid", "'weight' is not supported on static NodePools", nil, ""),
		np("static pool with cpu limit", func(s *manifest.NodePoolSpec) {
			s.Replicas, s.Limits = ptr(int64(2)), map[string]string{"cpu": "100"}
		}, "spec", "Invalid", "only 'limits.nodes' is supported on static NodePools", nil, ""),
		np("nodeClassRef without name", func(s *manifest.NodePoolSpec) { s.Template.Spec.NodeClassRef.Name = "" },
			"spec.template.spec.nodeClassRef.name", "Invalid", "name may not be empty", "", "node_class.name"),
	}
}

func TestBrokenManifestsAreRejected(t *testing.T) {
	ctx := context.Background()
	for _, tc := range append(brokenNodeClasses(), brokenNodePools()...) {
		t.Run(tc.kind.Name()+"/"+tc.name, func(t *testing.T) {
			obj := object(t, tc.obj)
			if tc.raw != nil {
				tc.raw(obj)
			}
			res, err := tc.kind.Validate(ctx, obj)
			if err != nil {
				t.Fatal(err)
			}
			var got *Error
			for i, e := range res.Errors {
				if e.Field == tc.field && e.Reason() == tc.reason && strings.HasSuffix(e.Detail, tc.detail) && (tc.detail != "" || e.Detail == "") {
					got = &res.Errors[i]
				}
			}
			if got == nil {
				t.Fatalf("want %s %s %q; got:\n%s", tc.field, tc.reason, tc.detail, dump(res.Errors))
			}
			if tc.value == nil && got.HasValue {
				t.Errorf("value %#v, want none", got.Value)
			}
			if tc.value != nil && (!got.HasValue || got.Value != tc.value) {
				t.Errorf("value %#v (%v), want %#v", got.Value, got.HasValue, tc.value)
			}
			if tc.reason != "NotSupported" && got.Detail != tc.detail {
				t.Errorf("detail %q, want %q", got.Detail, tc.detail)
			}
			if p := tc.kind.TerraformPath(got.Field).String(); p != tc.tfPath {
				t.Errorf("terraform path %q, want %q", p, tc.tfPath)
			}

			// The findings carry the mapped path and quote the server.
			var fs []string
			_, findings := tc.kind.Findings(ctx, obj)
			for _, f := range findings.ByRule("crd-validation") {
				if f.Path.String() == tc.tfPath && strings.Contains(f.Detail, got.Text) {
					fs = append(fs, f.Detail)
				}
			}
			if len(fs) == 0 || !findings.HasErrors() {
				t.Errorf("no crd-validation error at %q quoting %q in %v", tc.tfPath, got.Text, findings)
			}
		})
	}
}

func dump(errs []Error) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("  " + e.Reason() + " " + e.Text + "\n")
	}
	return b.String()
}
