package drift

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/mitchellh/hashstructure/v2"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The oracle: the manifest as the API server stores it (the v1.14.1 CRD's
// defaulting and pruning, run by internal/crd), decoded into Karpenter's own
// types, hashed by Karpenter's own Hash().

// storedClass is the class as the API server of Karpenter kv stores it: the
// v1.14.1 CRD's result, less the fields kv's CRD does not have yet (an older
// CRD's structural schema prunes them).
func storedClass(t *testing.T, spec manifest.EC2NodeClassSpec, kv versions.Karpenter) *awsv1.EC2NodeClass {
	return stored[awsv1.EC2NodeClass](t, crd.EC2NodeClass, manifest.EC2NodeClass{APIVersion: manifest.EC2NodeClassAPIVersion,
		Kind: manifest.EC2NodeClassKind, Metadata: manifest.ObjectMeta{Name: "default"}, Spec: spec},
		func(obj map[string]any) { pruneAbsentFields(obj, kv) })
}

func storedPool(t *testing.T, spec manifest.NodePoolSpec) *karpv1.NodePool {
	return stored[karpv1.NodePool](t, crd.NodePool, manifest.NodePool{APIVersion: manifest.NodePoolAPIVersion,
		Kind: manifest.NodePoolKind, Metadata: manifest.ObjectMeta{Name: "default"}, Spec: spec}, nil)
}

// stored is obj as the API server stores it (changed by edit when not nil),
// decoded into Karpenter's type.
func stored[T any](t *testing.T, k *crd.Kind, obj any, edit func(map[string]any)) *T {
	t.Helper()
	o, err := manifest.Object(obj)
	if err != nil {
		t.Fatal(err)
	}
	res, err := k.Validate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(res.Object)
	}
	var out T
	roundTrip(t, res.Object, &out)
	return &out
}

// Spec fields Karpenter added after v1.0.0, by the minor release whose
// EC2NodeClass CRD first has them (aws/karpenter-provider-aws
// pkg/apis/v1/ec2nodeclass.go at v1.5.0, v1.8.0, v1.11.0 and v1.13.0; the
// shapes and hash tags are unchanged from there to v1.14.1).
var specFieldsSince = map[string]int{
	"ipPrefixCount": 8, "networkInterfaces": 11, "placementGroupSelector": 11,
	"connectionTracking": 13, "cpuOptions": 13,
}

const volumeInitializationRateSince = 5

// pruneAbsentFields removes from a stored EC2NodeClass the fields Karpenter
// kv's CRD does not have.
func pruneAbsentFields(obj map[string]any, kv versions.Karpenter) {
	spec, _ := obj["spec"].(map[string]any)
	for f, minor := range specFieldsSince {
		if !kv.AtLeast(minor, 0) {
			delete(spec, f)
		}
	}
	if kv.AtLeast(volumeInitializationRateSince, 0) {
		return
	}
	bdms, _ := spec["blockDeviceMappings"].([]any)
	for _, m := range bdms {
		bdm, _ := m.(map[string]any)
		if ebs, ok := bdm["ebs"].(map[string]any); ok {
			delete(ebs, "volumeInitializationRate")
		}
	}
}

func roundTrip(t *testing.T, from, into any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("Karpenter's types refuse %s: %v", b, err)
	}
}

const testCABundle = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM="

// upstreamClassHash is the EC2NodeClass Hash() body of each hash version,
// evaluated on Karpenter v1.14.1's types. v5 is v1.14.1's Hash() itself; v4
// (1.1.0-1.11.3) hashed []any{Spec, AMIFamily()} without the CA bundle; v3
// (1.0.x) also tagged Kubelet hash:"ignore", which hashstructure treats
// exactly as a nil Kubelet (both skip the field before hashing anything).
// Every field has the same shape and tags in each tag that has it, from
// v1.0.0 to v1.14.1; the ones a release lacks are pruned by storedClass.
func upstreamClassHash(t *testing.T, nc *awsv1.EC2NodeClass, kv versions.Karpenter) string {
	t.Helper()
	switch EC2NodeClassHashVersion(kv) {
	case "v5":
		if awsv1.EC2NodeClassHashVersion != "v5" {
			t.Fatalf("karpenter-provider-aws in go.mod writes hash version %s", awsv1.EC2NodeClassHashVersion)
		}
		ca := testCABundle
		return nc.Hash(&ca)
	case "v4", "v3":
		spec := nc.Spec
		if kv.Minor < 1 {
			spec.Kubelet = nil
		}
		h, err := hashstructure.Hash([]any{spec, nc.AMIFamily()}, hashstructure.FormatV2,
			&hashstructure.HashOptions{SlicesAsSets: true, IgnoreZeroValue: true, ZeroNil: true})
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatUint(h, 10)
	}
	t.Fatalf("no hash version for %s", kv)
	return ""
}

// The releases at the edges of each hash version and of each field added
// after v1.0.0.
var hashReleases = []versions.Karpenter{
	{Minor: 0, Patch: 0}, {Minor: 0, Patch: 14}, {Minor: 1, Patch: 0}, {Minor: 4, Patch: 4}, {Minor: 5, Patch: 0},
	{Minor: 6, Patch: -1}, {Minor: 7, Patch: 6}, {Minor: 8, Patch: 0}, {Minor: 10, Patch: 2}, {Minor: 11, Patch: 0},
	{Minor: 11, Patch: 3}, {Minor: 12, Patch: 0}, {Minor: 12, Patch: 2}, {Minor: 13, Patch: 0}, {Minor: 14, Patch: 1},
}

func TestEC2NodeClassHashEqualsKarpenter(t *testing.T) {
	cases := classCases()
	if len(cases) < 25 {
		t.Fatalf("only %d specs", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, kv := range hashReleases {
				nc := storedClass(t, c.spec, kv)
				got, err := EC2NodeClassHash(c.spec, testCABundle, kv)
				if err != nil {
					t.Fatalf("%s: %v", kv, err)
				}
				if want := upstreamClassHash(t, nc, kv); got != want {
					t.Errorf("Karpenter %s (hash %s): got %s, Karpenter's Hash() says %s", kv, EC2NodeClassHashVersion(kv), got, want)
				}
			}
		})
	}
}

func TestNodePoolHashEqualsKarpenter(t *testing.T) {
	cases := poolCases()
	if len(cases) < 25 {
		t.Fatalf("only %d specs", len(cases))
	}
	if karpv1.NodePoolHashVersion != NodePoolHashVersion(versions.DefaultKarpenter) {
		t.Fatalf("sigs.k8s.io/karpenter writes nodepool hash version %s", karpv1.NodePoolHashVersion)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := storedPool(t, c.spec).Hash()
			// NodePool.Hash() and its inputs are the same in every
			// sigs.k8s.io/karpenter tag from v1.0.0 to v1.14.1.
			for _, kv := range hashReleases {
				got, err := NodePoolHash(c.spec, kv)
				if err != nil {
					t.Fatalf("%s: %v", kv, err)
				}
				if got != want {
					t.Errorf("Karpenter %s: got %s, Karpenter's Hash() says %s", kv, got, want)
				}
			}
		})
	}
}

// The CA bundle counts from 1.12 only, and kubelet from 1.1 only.
func TestHashVersionsDiffer(t *testing.T) {
	spec := classCases()[0].spec
	withKubelet := spec
	withKubelet.Kubelet = &manifest.Kubelet{MaxPods: p(int32(110))}
	for _, kv := range hashReleases {
		a, _ := EC2NodeClassHash(spec, "", kv)
		b, _ := EC2NodeClassHash(spec, testCABundle, kv)
		if (a != b) != HashUsesCABundle(kv) {
			t.Errorf("%s: CA bundle changes the hash: %v, want %v", kv, a != b, HashUsesCABundle(kv))
		}
		k, _ := EC2NodeClassHash(withKubelet, "", kv)
		if (a != k) != (kv.Minor >= 1) {
			t.Errorf("%s: kubelet changes the hash: %v, want %v", kv, a != k, kv.Minor >= 1)
		}
	}
}

func TestHashErrors(t *testing.T) {
	for _, alias := range []string{"al2023", "al2023@latest@x", "ubuntu@latest", "AL2023@latest"} {
		spec := baseClass()
		spec.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: alias}}
		if _, err := EC2NodeClassHash(spec, "", versions.DefaultKarpenter); err == nil {
			t.Errorf("alias %q: no error", alias)
		}
	}
	spec := baseClass()
	spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{EBS: &manifest.BlockDevice{VolumeSize: "lots"}}}
	if _, err := EC2NodeClassHash(spec, "", versions.DefaultKarpenter); err == nil {
		t.Error("bad volume size: no error")
	}
	ps := basePool()
	ps.Template.Spec.ExpireAfter = "a month"
	if _, err := NodePoolHash(ps, versions.DefaultKarpenter); err == nil {
		t.Error("bad expireAfter: no error")
	}
}

// A field Karpenter added after v1.0.0 changes the hash from the release
// whose CRD has it (ipPrefixCount never: it is hash:"ignore"); before that
// release the API server prunes it, and the hash is the unset spec's.
func TestAddedFieldsCountFromTheirRelease(t *testing.T) {
	ebs := &manifest.BlockDevice{SnapshotID: "snap-0123456789abcdef0"}
	withEBS := func(rate *int32) manifest.EC2NodeClassSpec {
		e := *ebs
		e.VolumeInitializationRate = rate
		return class(func(s *manifest.EC2NodeClassSpec) {
			s.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvdb", EBS: &e}}
		})
	}
	for _, c := range []struct {
		name       string
		unset, set manifest.EC2NodeClassSpec
		since      int // minor release whose hash counts it; -1 never
	}{
		{"context", baseClass(), class(func(s *manifest.EC2NodeClassSpec) { s.Context = p("c-1") }), 0},
		{"volumeInitializationRate", withEBS(nil), withEBS(p(int32(100))), 5},
		{"ipPrefixCount", baseClass(), class(func(s *manifest.EC2NodeClassSpec) { s.IPPrefixCount = p(int32(3)) }), -1},
		{"networkInterfaces", baseClass(), class(func(s *manifest.EC2NodeClassSpec) {
			s.NetworkInterfaces = []manifest.NetworkInterface{{InterfaceType: "interface"}}
		}), 11},
		{"placementGroupSelector", baseClass(), class(func(s *manifest.EC2NodeClassSpec) {
			s.PlacementGroupSelector = &manifest.PlacementGroupSelector{Name: p("pg")}
		}), 11},
		{"connectionTracking", baseClass(), class(func(s *manifest.EC2NodeClassSpec) {
			s.ConnectionTracking = &manifest.ConnectionTracking{UDPTimeout: p(int32(30))}
		}), 13},
		{"cpuOptions", baseClass(), class(func(s *manifest.EC2NodeClassSpec) {
			s.CPUOptions = &manifest.CPUOptions{NestedVirtualization: p("enabled")}
		}), 13},
	} {
		for _, kv := range hashReleases {
			a, err := EC2NodeClassHash(c.unset, testCABundle, kv)
			if err != nil {
				t.Fatal(err)
			}
			b, err := EC2NodeClassHash(c.set, testCABundle, kv)
			if err != nil {
				t.Fatal(err)
			}
			want := c.since >= 0 && kv.Minor >= c.since
			if (a != b) != want {
				t.Errorf("%s under Karpenter %s: changes the hash %v, want %v", c.name, kv, a != b, want)
			}
		}
	}
}
