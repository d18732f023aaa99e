package crd

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

func TestManifestPath(t *testing.T) {
	for _, tc := range []struct {
		kind *Kind
		tf   rules.Path
		want string
		ok   bool
	}{
		{EC2NodeClass, rules.Path{}, "", true},
		{EC2NodeClass, rules.Root("name"), "metadata.name", true},
		{EC2NodeClass, rules.Root("ami_family"), "spec.amiFamily", true},
		{EC2NodeClass, rules.Root("ami_selector_terms").Index(1).Attr("ssm_parameter"), "spec.amiSelectorTerms[1].ssmParameter", true},
		{EC2NodeClass, rules.Root("subnet_selector_terms").Index(0).Attr("tags").Key("karpenter.sh/discovery"), "spec.subnetSelectorTerms[0].tags[karpenter.sh/discovery]", true},
		{EC2NodeClass, rules.Root("kubelet").Attr("eviction_hard").Key("memory.available"), "spec.kubelet.evictionHard[memory.available]", true},
		{EC2NodeClass, rules.Root("kubelet").Attr("cluster_dns").Index(0), "spec.kubelet.clusterDNS[0]", true},
		{EC2NodeClass, rules.Root("block_device_mappings").Index(2).Attr("ebs").Attr("kms_key_id"), "spec.blockDeviceMappings[2].ebs.kmsKeyID", true},
		{EC2NodeClass, rules.Root("metadata_options").Attr("http_protocol_ipv6"), "spec.metadataOptions.httpProtocolIPv6", true},
		{EC2NodeClass, rules.Root("capacity_reservation_selector_terms").Index(0).Attr("owner_id"), "spec.capacityReservationSelectorTerms[0].ownerID", true},
		{EC2NodeClass, rules.Root("user_data"), "spec.userData", true},
		{EC2NodeClass, rules.Root("bootstrap").Attr("cluster_name"), "", false},
		{EC2NodeClass, rules.Root("tags").Key("a").Attr("b"), "spec.tags[a]", false},
		{NodePool, rules.Root("name"), "metadata.name", true},
		{NodePool, rules.Root("requirements").Index(0).Attr("min_values"), "spec.template.spec.requirements[0].minValues", true},
		{NodePool, rules.Root("requirements").Index(3).Attr("values").Index(1), "spec.template.spec.requirements[3].values[1]", true},
		{NodePool, rules.Root("labels").Key("team"), "spec.template.metadata.labels[team]", true},
		{NodePool, rules.Root("startup_taints").Index(0).Attr("effect"), "spec.template.spec.startupTaints[0].effect", true},
		{NodePool, rules.Root("expire_after"), "spec.template.spec.expireAfter", true},
		{NodePool, rules.Root("node_class").Attr("name"), "spec.template.spec.nodeClassRef.name", true},
		{NodePool, rules.Root("node_class").Attr("amis"), "spec.template.spec.nodeClassRef", false},
		{NodePool, rules.Root("disruption").Attr("budgets").Index(1).Attr("reasons").Index(0), "spec.disruption.budgets[1].reasons[0]", true},
		{NodePool, rules.Root("limits").Key("cpu"), "spec.limits[cpu]", true},
		{NodePool, rules.Root("weight"), "spec.weight", true},
		{NodePool, rules.Root("requirements").Attr("key"), "spec.template.spec.requirements", false},
	} {
		got, ok := tc.kind.ManifestPath(tc.tf)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s %s: got %q %v, want %q %v", tc.kind.Name(), tc.tf, got, ok, tc.want, tc.ok)
		}
	}
}

// Every path the inverse produces maps back to the attribute it came from.
func TestManifestPathRoundTrips(t *testing.T) {
	for _, kind := range []*Kind{EC2NodeClass, NodePool} {
		var walk func(n *node, tf rules.Path)
		walk = func(n *node, tf rules.Path) {
			for _, c := range n.fields {
				p := tf
				if c.tf != "" {
					p = tf.Attr(c.tf)
					if c.list {
						p = p.Index(0)
					}
					if c.dict {
						p = p.Key("k")
					}
					m, ok := kind.ManifestPath(p)
					if !ok {
						t.Errorf("%s %s: no manifest path", kind.Name(), p)
						continue
					}
					if back := kind.TerraformPath(m); back.String() != p.String() {
						t.Errorf("%s %s -> %s -> %s", kind.Name(), p, m, back)
					}
				}
				walk(c, p)
			}
		}
		walk(kind.tree, rules.Path{})
	}
}
