package provider

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
)

func TestAMIKeys(t *testing.T) {
	arch := func(a string) ami.Requirement {
		return ami.Requirement{Key: "kubernetes.io/arch", Operator: "In", Values: []string{a}}
	}
	gpu := ami.Requirement{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: "Exists"}
	amis := []ami.AMI{
		{ID: "ami-2", Architecture: "amd64", Requirements: []ami.Requirement{arch("amd64"), gpu}},
		{ID: "ami-1", Architecture: "arm64", Variant: amifamily.Variant("nvidia"), Requirements: []ami.Requirement{arch("arm64")}},
		{ID: "ami-3", Architecture: "amd64", Requirements: []ami.Requirement{arch("amd64")}},
	}
	got := amiKeys(amis)
	// The two amd64 requirement sets are numbered by their requirements,
	// not by position: swapping them (a newer image) keeps their keys.
	want := []string{"amd64#2", "arm64/nvidia", "amd64#1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("amiKeys = %v, want %v", got, want)
	}
	swapped := amiKeys([]ami.AMI{amis[2], amis[1], amis[0]})
	if !reflect.DeepEqual(swapped, []string{"amd64#1", "arm64/nvidia", "amd64#2"}) {
		t.Fatalf("amiKeys after reordering = %v", swapped)
	}
}

// node_class carries requirements on one line; the pool reads back exactly
// what the class resolved.
func TestRequirementsRoundTrip(t *testing.T) {
	rs := []ami.Requirement{
		{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64", "arm64"}},
		{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: "DoesNotExist"},
	}
	s := formatRequirements(rs)
	if s != "kubernetes.io/arch In amd64,arm64; karpenter.k8s.aws/instance-gpu-count DoesNotExist" {
		t.Fatalf("formatRequirements = %q", s)
	}
	if got, err := parseRequirements(s); err != nil || !reflect.DeepEqual(got, rs) {
		t.Fatalf("parseRequirements(%q) = %#v, %v, want %#v", s, got, err, rs)
	}
	for k, want := range map[string][2]string{"amd64/nvidia": {"amd64", "nvidia"}, "arm64": {"arm64", ""}, "amd64#2": {"amd64", ""}, "arm64/standard#1": {"arm64", "standard"}} {
		if arch, v := keyParts(k); arch != want[0] || string(v) != want[1] {
			t.Errorf("keyParts(%q) = %q, %q, want %q", k, arch, v, want)
		}
	}
}

// A pinned release bump: every image map keeps its keys, and only ids,
// names and creation dates change under them (no entry moves between
// architectures, as list positions did).
func TestAccAMIReleaseBumpDiffsUnderStableKeys(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	config := func(release string) string {
		return prov + classHCL("default", `  ami_selector_terms { alias = "al2023@`+release+`" }`) +
			poolHCL("mixed", "karpenter_ec2nodeclass.default.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "m5", "m6g", "g5", "g5g"))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("v20251112")},
			{
				Config: config("v20251209"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					keyedImageDiff{addr: "karpenter_ec2nodeclass.default", attr: []string{"amis"}, wantKeys: 5},
					keyedImageDiff{addr: "karpenter_ec2nodeclass.default", attr: []string{"node_class", "amis"}, wantKeys: 5},
					keyedImageDiff{addr: "karpenter_nodepool.mixed", attr: []string{"node_class", "amis"}, wantKeys: 5},
					keyedImageDiff{addr: "karpenter_nodepool.mixed", attr: []string{"ami_assignments"}, wantKeys: 4},
				}},
			},
		},
	})
}

// keyedImageDiff asserts that a keyed image map has the same keys before
// and after, and that what changes under them is only image identity.
type keyedImageDiff struct {
	addr     string
	attr     []string
	wantKeys int
}

var imageIdentity = map[string]bool{"id": true, "name": true, "ami_id": true, "ami_name": true, "creation_date": true}

func (c keyedImageDiff) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		before, after := dig(rc.Change.Before, c.attr), dig(rc.Change.After, c.attr)
		bm, ok1 := before.(map[string]any)
		am, ok2 := after.(map[string]any)
		if !ok1 || !ok2 {
			resp.Error = fmt.Errorf("%s.%s is not a known map before and after: %T -> %T", c.addr, strings.Join(c.attr, "."), before, after)
			return
		}
		if len(bm) != c.wantKeys || !reflect.DeepEqual(slices.Sorted(maps.Keys(bm)), slices.Sorted(maps.Keys(am))) {
			resp.Error = fmt.Errorf("%s.%s keys %v -> %v, want the same %d keys", c.addr, strings.Join(c.attr, "."), slices.Sorted(maps.Keys(bm)), slices.Sorted(maps.Keys(am)), c.wantKeys)
			return
		}
		var changed []string
		for k := range bm {
			b, a := imageFields(bm[k]), imageFields(am[k])
			for field := range b {
				if !reflect.DeepEqual(b[field], a[field]) {
					if !imageIdentity[field] {
						resp.Error = fmt.Errorf("%s.%s[%q].%s changes (%v -> %v): a release bump must change only ids and names", c.addr, strings.Join(c.attr, "."), k, field, b[field], a[field])
						return
					}
					changed = append(changed, k+"."+field)
				}
			}
		}
		if len(changed) == 0 {
			resp.Error = fmt.Errorf("%s.%s: the release bump changed nothing", c.addr, strings.Join(c.attr, "."))
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}

// imageFields is an image's fields: what an amis line reads back as, or
// an ami_assignments line, "<id> <name>: <families>".
func imageFields(v any) map[string]any {
	s, _ := v.(string)
	if a, err := parseClassAMI(s); err == nil {
		return map[string]any{"id": a.ID, "name": a.Name, "creation_date": a.CreationDate, "requirements": formatRequirements(a.Requirements)}
	}
	if i := strings.LastIndex(s, ": "); i >= 0 {
		if id, name, ok := strings.Cut(s[:i], " "); ok {
			return map[string]any{"ami_id": id, "ami_name": name, "instance_families": s[i+2:]}
		}
	}
	return map[string]any{"unreadable": s}
}

func dig(v any, path []string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// node_class.amis is one line per image; the pool reads back exactly what
// the class wrote, whatever the name holds, and says what is malformed.
func TestClassAMIForm(t *testing.T) {
	a := ami.AMI{
		ID: "ami-0a10f319e3e4c3de7", Name: "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209", CreationDate: "2025-12-10T15:00:38.000Z",
		Requirements: []ami.Requirement{
			{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}},
			{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: "Exists"},
		},
	}
	s := formatClassAMI(a)
	if want := "ami-0a10f319e3e4c3de7 | amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209 | 2025-12-10T15:00:38.000Z | kubernetes.io/arch In amd64; karpenter.k8s.aws/instance-gpu-count Exists"; s != want {
		t.Fatalf("formatClassAMI = %q, want %q", s, want)
	}
	for _, name := range []string{a.Name, "odd | name | with | bars", " | ", "", "[x] (y) 'z' @ a/b", "ends with |"} {
		b := a
		b.Name = name
		got, err := parseClassAMI(formatClassAMI(b))
		if err != nil || got.ID != b.ID || got.Name != name || got.CreationDate != b.CreationDate || !reflect.DeepEqual(got.Requirements, b.Requirements) {
			t.Errorf("name %q: parseClassAMI(formatClassAMI) = %+v, %v", name, got, err)
		}
	}
	for v, want := range map[string]string{
		"ami-1 name":                                "not four fields",
		"ami-1 | name | 2025-10-15T09:00:00Z":       "not four fields",
		" | name | 2025-10-15T09:00:00Z | ":         "id \"\"",
		"ami 1 | name | 2025-10-15T09:00:00Z | ":    "id \"ami 1\"",
		"ami-1 | name | 15/10/2025 | ":              "creation date \"15/10/2025\" is not RFC 3339",
		"ami-1 | name |  | kubernetes.io/arch":      "requirement \"kubernetes.io/arch\" is not",
		"ami-1 | name |  | a In x;b Exists":         "requirement \"a In x;b Exists\"",
		"ami-1 | name |  | a In x,,y":               "empty word",
		"ami-1 | name |  | a In x; ":                "requirement \"\"",
		"ami-1 | name |  | a  In x":                 "requirement \"a  In x\"",
		"ami-1 | name |  | kubernetes.io/arch|x In": "requirement \"kubernetes.io/arch|x In\"",
	} {
		if _, err := parseClassAMI(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseClassAMI(%q) = %v, want an error with %q", v, err, want)
		}
	}
	// Empty requirements and date read back as written.
	if got, err := parseClassAMI("ami-1 | n |  | "); err != nil || got.ID != "ami-1" || got.Name != "n" || got.CreationDate != "" || got.Requirements != nil {
		t.Errorf("empty fields: %+v, %v", got, err)
	}
}

// Whatever parseClassAMI accepts formats back to the same text (so nothing
// is silently dropped or reread differently), it never panics, and any
// name survives the round trip.
func FuzzClassAMI(f *testing.F) {
	f.Add("ami-1 | n | 2025-10-15T09:00:00.000Z | kubernetes.io/arch In amd64; karpenter.k8s.aws/instance-gpu-count Exists", "n")
	f.Add("ami-1 |  |  | ", " | ")
	f.Add("a | | b | | c", "x |")
	f.Add(" |  |  | ", "")
	f.Fuzz(func(t *testing.T, s, name string) {
		if a, err := parseClassAMI(s); err == nil {
			if back := formatClassAMI(a); back != s {
				t.Fatalf("parseClassAMI(%q) formats back as %q", s, back)
			}
		}
		a := ami.AMI{ID: "ami-0aaf333b614a08570", Name: name, CreationDate: "2025-10-15T09:00:00.000Z",
			Requirements: []ami.Requirement{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64", "arm64"}}}}
		got, err := parseClassAMI(formatClassAMI(a))
		if err != nil || got.Name != name || got.ID != a.ID || got.CreationDate != a.CreationDate || !reflect.DeepEqual(got.Requirements, a.Requirements) {
			t.Fatalf("name %q: %+v, %v", name, got, err)
		}
	})
}
