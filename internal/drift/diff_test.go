package drift

import (
	"reflect"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var latest = versions.Karpenter{Minor: 14, Patch: 1}

func replacesAll(cs []Change) bool {
	for _, c := range cs {
		if c.Effect == ReplacesAll {
			return true
		}
	}
	return false
}

// Over every pair of table specs and every hash version, the diff names a
// hashed field exactly when the two hashes differ.
func TestChangesAgreeWithHashes(t *testing.T) {
	cs := classCases()
	// One release of each EC2NodeClass hash version.
	for _, kv := range []versions.Karpenter{{Minor: 0, Patch: 8}, {Minor: 11, Patch: 3}, latest} {
		hashes := make([]string, len(cs))
		for i, c := range cs {
			hashes[i], _ = EC2NodeClassHash(c.spec, testCABundle, kv)
		}
		for i, a := range cs {
			for j, b := range cs {
				ch, err := EC2NodeClassChanges(a.spec, b.spec, testCABundle, testCABundle, kv)
				if err != nil {
					t.Fatal(err)
				}
				if replacesAll(ch) != (hashes[i] != hashes[j]) {
					t.Errorf("%s: %q -> %q: hashes differ %v, changes %v", kv, a.name, b.name, hashes[i] != hashes[j], ch)
				}
				if i == j && len(ch) > 0 {
					t.Errorf("%s: %q against itself: %v", kv, a.name, ch)
				}
			}
		}
	}
	ps := poolCases()
	hashes := make([]string, len(ps))
	for i, c := range ps {
		hashes[i], _ = NodePoolHash(c.spec, latest)
	}
	for i, a := range ps {
		for j, b := range ps {
			ch, err := NodePoolChanges(a.spec, b.spec, latest)
			if err != nil {
				t.Fatal(err)
			}
			if replacesAll(ch) != (hashes[i] != hashes[j]) {
				t.Errorf("%q -> %q: hashes differ %v, changes %v", a.name, b.name, hashes[i] != hashes[j], ch)
			}
		}
	}
}

func TestEC2NodeClassChanges(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(*manifest.EC2NodeClassSpec)
		kv       versions.Karpenter
		newCA    string
		want     []Change
		hashSame bool
	}{
		{"kubelet field", func(s *manifest.EC2NodeClassSpec) { s.Kubelet = &manifest.Kubelet{MaxPods: p(int32(58))} }, latest, "",
			[]Change{{"spec.kubelet.maxPods", ReplacesAll}}, false},
		{"empty kubelet", func(s *manifest.EC2NodeClassSpec) { s.Kubelet = &manifest.Kubelet{} }, latest, "",
			[]Change{{"spec.kubelet", ReplacesAll}}, false},
		{"kubelet before 1.1 is not hashed", func(s *manifest.EC2NodeClassSpec) { s.Kubelet = &manifest.Kubelet{MaxPods: p(int32(58))} },
			versions.Karpenter{Minor: 0, Patch: 8}, "", []Change{{"spec.kubelet", NoReplacement}}, true},
		{"pinned alias bump resolves images, not the hash", func(s *manifest.EC2NodeClassSpec) {
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "al2023@v20251209"}}
		}, latest, "", []Change{{"spec.amiSelectorTerms", ReplacesMismatched}}, true},
		{"alias of another family changes the hashed family", func(s *manifest.EC2NodeClassSpec) {
			s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "bottlerocket@latest"}}
		}, latest, "", []Change{{"spec.amiSelectorTerms", ReplacesAll}}, false},
		{"amiFamily equal to the alias family", func(s *manifest.EC2NodeClassSpec) { s.AMIFamily = "AL2023" }, latest, "",
			[]Change{{"spec.amiFamily", NoReplacement}}, true},
		{"amiFamily Custom", func(s *manifest.EC2NodeClassSpec) { s.AMIFamily = "Custom" }, latest, "",
			[]Change{{"spec.amiFamily", ReplacesAll}}, false},
		{"metadata options spelled as their defaults", func(s *manifest.EC2NodeClassSpec) {
			s.MetadataOptions = &manifest.MetadataOptions{HTTPEndpoint: "enabled", HTTPPutResponseHopLimit: p(int64(1))}
		}, latest, "", []Change{{"spec.metadataOptions", NoReplacement}}, true},
		{"metadata hop limit", func(s *manifest.EC2NodeClassSpec) {
			s.MetadataOptions = &manifest.MetadataOptions{HTTPPutResponseHopLimit: p(int64(2))}
		}, latest, "", []Change{{"spec.metadataOptions.httpPutResponseHopLimit", ReplacesAll}}, false},
		{"selectors", func(s *manifest.EC2NodeClassSpec) {
			s.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{ID: "subnet-0123"}}
			s.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{Name: "nodes"}}
			s.CapacityReservationSelectorTerms = []manifest.CapacityReservationSelectorTerm{{ID: "cr-0123"}}
		}, latest, "", []Change{{"spec.capacityReservationSelectorTerms", ReplacesMismatched}, {"spec.securityGroupSelectorTerms", ReplacesMismatched}, {"spec.subnetSelectorTerms", ReplacesMismatched}}, true},
		{"role, tags and user data", func(s *manifest.EC2NodeClassSpec) {
			s.Role = "other"
			s.Tags = map[string]string{"a": "b"}
			s.UserData = p("x")
		}, latest, "", []Change{{"spec.role", ReplacesAll}, {"spec.tags", ReplacesAll}, {"spec.userData", ReplacesAll}}, false},
		{"same volume size spelled differently", nil, latest, "", []Change{{"spec.blockDeviceMappings", NoReplacement}}, true},
		{"CA bundle from 1.12", func(*manifest.EC2NodeClassSpec) {}, versions.Karpenter{Minor: 12, Patch: 0}, "other",
			[]Change{{CABundleField, ReplacesAll}}, false},
		{"CA bundle before 1.12", func(*manifest.EC2NodeClassSpec) {}, versions.Karpenter{Minor: 11, Patch: 3}, "other", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := baseClass()
			var updated manifest.EC2NodeClassSpec
			if tc.edit == nil {
				old.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "1024Gi"}}}
				updated = class(func(s *manifest.EC2NodeClassSpec) {
					s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "1Ti"}}}
				})
			} else {
				updated = class(tc.edit)
			}
			got, err := EC2NodeClassChanges(old, updated, "", tc.newCA, tc.kv)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			ho, _ := EC2NodeClassHash(old, "", tc.kv)
			hn, _ := EC2NodeClassHash(updated, tc.newCA, tc.kv)
			if (ho == hn) != tc.hashSame {
				t.Errorf("hashes equal %v, want %v", ho == hn, tc.hashSame)
			}
		})
	}
}

func TestNodePoolChanges(t *testing.T) {
	tests := []struct {
		name string
		edit func(*manifest.NodePoolSpec)
		want []Change
	}{
		{"weight, limits, disruption, replicas", func(s *manifest.NodePoolSpec) {
			s.Weight = p(int32(10))
			s.Limits = map[string]string{"cpu": "100"}
			s.Disruption = &manifest.Disruption{ConsolidateAfter: p("1m"), Budgets: []manifest.Budget{{Nodes: "0"}}}
			s.Replicas = p(int64(2))
		}, []Change{{"spec.disruption", NoReplacement}, {"spec.limits", NoReplacement}, {"spec.replicas", NoReplacement}, {"spec.weight", NoReplacement}}},
		{"requirements", func(s *manifest.NodePoolSpec) {
			s.Template.Spec.Requirements = append(s.Template.Spec.Requirements, manifest.Requirement{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot"}})
		}, []Change{{"spec.template.spec.requirements", ReplacesMismatched}}},
		{"labels and taints", func(s *manifest.NodePoolSpec) {
			s.Template.Metadata = &manifest.TemplateMeta{Labels: map[string]string{"team": "a"}}
			s.Template.Spec.Taints = []manifest.Taint{{Key: "a", Effect: "NoSchedule"}}
		}, []Change{{"spec.template.metadata.labels", ReplacesAll}, {"spec.template.spec.taints", ReplacesAll}}},
		{"expireAfter spelled as its default", func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "720h" },
			[]Change{{"spec.template.spec.expireAfter", NoReplacement}}},
		{"expireAfter", func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "168h" },
			[]Change{{"spec.template.spec.expireAfter", ReplacesAll}}},
		{"terminationGracePeriod", func(s *manifest.NodePoolSpec) { s.Template.Spec.TerminationGracePeriod = "1h" },
			[]Change{{"spec.template.spec.terminationGracePeriod", ReplacesAll}}},
		{"node class", func(s *manifest.NodePoolSpec) { s.Template.Spec.NodeClassRef.Name = "gpu" },
			[]Change{{"spec.template.spec.nodeClassRef.name", ReplacesAll}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NodePoolChanges(basePool(), pool(tc.edit), latest)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
