package requirements

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var (
	v1_8  = versions.Karpenter{Minor: 8, Patch: 2}
	v1_9  = versions.Karpenter{Minor: 9, Patch: 0}
	v1_10 = versions.Karpenter{Minor: 10, Patch: -1}
	v1_14 = versions.DefaultKarpenter
)

func spec(key, op string, values ...string) Spec { return Spec{Key: key, Operator: op, Values: values} }

func withMin(s Spec, n int) Spec { s.MinValues = &n; return s }

func ids(fs rules.Findings) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule.ID)
	}
	slices.Sort(out)
	return out
}

// Every rule of the package: a spec that triggers it (and nothing else), and
// where the finding must point.
func TestValidateRules(t *testing.T) {
	cases := []struct {
		name    string
		spec    Spec
		version versions.Karpenter
		want    []string
		path    string
		detail  string // a fragment the detail must contain
	}{
		{"key not qualified", spec("team name", "Exists"), v1_14, []string{"requirement-key-invalid"}, "requirements[0].key", `"team name" is not a qualified label name`},
		{"key empty", spec("", "Exists"), v1_14, []string{"requirement-key-invalid"}, "requirements[0].key", "the key is empty"},
		{"key too long", spec(strings.Repeat("a", 253)+"/"+strings.Repeat("b", 63), "Exists"), v1_14, []string{"requirement-key-invalid"}, "requirements[0].key", "316"},
		{"value not a label value", spec("example.com/team", "In", "team/a"), v1_14, []string{"requirement-value-invalid"}, "requirements[0].values", `"team/a" is not a valid label value`},
		{"value too long", spec("example.com/team", "In", strings.Repeat("x", 64)), v1_14, []string{"requirement-value-invalid"}, "requirements[0].values", "63"},
		{"operator case", spec(LabelArch, "in", "arm64"), v1_14, []string{"requirement-operator-unknown"}, "requirements[0].operator", `write "In"`},
		{"operator unknown", spec(LabelArch, "Like", "arm64"), v1_14, []string{"requirement-operator-unknown"}, "requirements[0].operator", `"Like" is not`},
		{"Gte before 1.9", spec(LabelInstanceCPU, "Gte", "4"), v1_8, []string{"requirement-gte-lte-before-1-9"}, "requirements[0].operator", "Gt with N-1"},
		{"Lte before 1.9", spec(LabelInstanceCPU, "Lte", "4"), v1_8, []string{"requirement-gte-lte-before-1-9"}, "requirements[0].operator", "Lt with N+1"},
		{"In without values", spec(LabelInstanceFamily, "In"), v1_14, []string{"requirement-in-without-values"}, "requirements[0].values", "must have a value defined"},
		{"Gt two values", spec(LabelInstanceCPU, "Gt", "4", "8"), v1_14, []string{"requirement-bound-not-single-integer"}, "requirements[0].values", `["4", "8"]`},
		{"Gt two values before 1.9", spec(LabelInstanceCPU, "Gt", "4", "8"), v1_8, []string{"requirement-bound-not-single-integer"}, "requirements[0].values", "'Gt' or 'Lt' must have"},
		{"Gt non-numeric value", spec(LabelInstanceCPU, "Gt", "four"), v1_14, []string{"requirement-bound-not-single-integer"}, "requirements[0].values", `["four"]`},
		{"Lt negative", spec("example.com/rank", "Lt", "-1"), v1_14, []string{"requirement-bound-not-single-integer", "requirement-value-invalid"}, "requirements[0].values", ""},
		{"Gt without values", spec(LabelInstanceCPU, "Gt"), v1_14, []string{"requirement-bound-not-single-integer"}, "requirements[0].values", "[]"},
		{"Gt on non-numeric label", spec(LabelInstanceSize, "Gt", "2"), v1_14, []string{"requirement-bound-on-non-numeric-label"}, "requirements[0].operator", "instance-cpu"},
		{"Lte on arch", spec(LabelArch, "Lte", "64"), v1_14, []string{"requirement-bound-on-non-numeric-label"}, "requirements[0].operator", "never integers"},
		{"Exists with values", spec(LabelInstanceGPUCount, "Exists", "1"), v1_14, []string{"requirement-values-ignored"}, "requirements[0].values", `["1"]`},
		{"DoesNotExist with values", spec("example.com/x", "DoesNotExist", "a"), v1_14, []string{"requirement-values-ignored"}, "requirements[0].values", "plain DoesNotExist"},
		{"min_values 0", withMin(spec(LabelInstanceFamily, "Exists"), 0), v1_14, []string{"requirement-min-values-out-of-range"}, "requirements[0].min_values", "minValues 0"},
		{"min_values 51", withMin(spec(LabelInstanceFamily, "Exists"), 51), v1_14, []string{"requirement-min-values-out-of-range"}, "requirements[0].min_values", "1..50"},
		{"min_values above In count", withMin(spec(LabelInstanceFamily, "In", "m7i"), 2), v1_14, []string{"requirement-min-values-exceeds-values"}, "requirements[0].min_values", "only 1 value(s)"},
		{"capacity-type typo", spec(LabelCapacityType, "In", "ondemand"), v1_14, []string{"requirement-no-known-value"}, "requirements[0].values", `did you mean "on-demand"?`},
		{"tenancy unknown", spec(LabelInstanceTenancy, "In", "host"), v1_14, []string{"requirement-no-known-value"}, "requirements[0].values", "no valid values found"},
		{"capacity-type min_values over known", withMin(spec(LabelCapacityType, "In", "spot", "preemptible"), 2), v1_14, []string{"requirement-min-values-exceeds-known-values"}, "requirements[0].min_values", "not enough valid values found"},
		{"capacity-type one unknown", spec(LabelCapacityType, "In", "spot", "preemptible"), v1_14, []string{"requirement-unknown-value-ignored"}, "requirements[0].values", "proceeding with valid values"},
		// A near miss next to a valid value makes the pool spot-only: an error.
		{"capacity-type one misspelled", spec(LabelCapacityType, "In", "spot", "ondemand"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `uses only ["spot"]`},
		{"capacity-type case", spec(LabelCapacityType, "In", "spot", "On-Demand"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `Did you mean "on-demand"?`},
		{"capacity-type reserved before 1.3", spec(LabelCapacityType, "In", "spot", "reserve"), versions.Karpenter{Minor: 2}, []string{"requirement-unknown-value-ignored"}, "requirements[0].values", "proceeding with valid values"},
		{"tenancy misspelled NotIn", spec(LabelInstanceTenancy, "NotIn", "dedicate"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `excludes nothing`},
		{"arch hyphen", spec(LabelArch, "In", "amd64", "arm-64"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `Did you mean "arm64"?`},
		{"arch EC2 name", spec(LabelArch, "In", "x86_64"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `admits no instance type`},
		{"arch short", spec("beta.kubernetes.io/arch", "In", "arm"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `Did you mean "arm64"?`},
		{"arch typo", spec(LabelArch, "In", "amd-64"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `Did you mean "amd64"?`},
		{"os case", spec(LabelOS, "In", "Linux"), v1_14, []string{"requirement-value-misspelled"}, "requirements[0].values", `Did you mean "linux"?`},
		{"karpenter.sh domain", spec("karpenter.sh/team", "In", "a"), v1_14, []string{"requirement-key-karpenter-domain"}, "requirements[0].key", "example.com/team"},
		{"karpenter.sh suffix match", spec("notkarpenter.sh/x", "Exists"), v1_14, []string{"requirement-key-karpenter-domain"}, "requirements[0].key", "suffix match"},
		{"karpenter.sh/nodepool", spec(LabelNodePool, "In", "default"), v1_14, []string{"requirement-key-nodepool"}, "requirements[0].key", "invalid key"},
		{"hostname", spec(LabelHostname, "Exists"), v1_14, []string{"requirement-key-hostname"}, "requirements[0].key", "is restricted"},
		{"hostname before 1.9 reported once", spec(LabelHostname, "Exists"), v1_8, []string{"requirement-key-hostname"}, "requirements[0].key", ""},
		{"aws domain unknown label", spec("karpenter.k8s.aws/instance-familly", "In", "m5"), v1_14, []string{"requirement-key-aws-domain"}, "requirements[0].key", `did you mean "karpenter.k8s.aws/instance-family"?`},
		{"instance-pods is not a label", spec("karpenter.k8s.aws/instance-pods", "Gt", "20"), v1_14, []string{"requirement-key-aws-domain"}, "requirements[0].key", "not a label"},
		{"placement group before 1.11", spec(LabelPlacementGroupID, "In", "pg-1"), v1_10, []string{"requirement-key-aws-domain"}, "requirements[0].key", "from Karpenter 1.11"},
		{"ec2nodeclass runtime", spec(LabelNodeClass, "In", "default"), v1_14, []string{"requirement-key-ec2nodeclass"}, "requirements[0].key", "ValidationSucceeded=False"},
		{"kubernetes.io before 1.9", spec("node-role.kubernetes.io/worker", "Exists"), v1_8, []string{"requirement-key-kubernetes-domain"}, "requirements[0].key", `label domain \"kubernetes.io\" is restricted`},
		{"k8s.io before 1.9", spec("example.k8s.io/x", "Exists"), v1_8, []string{"requirement-key-kubernetes-domain"}, "requirements[0].key", `label domain \"k8s.io\" is restricted`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Validate([]Spec{c.spec}, c.version)
			if got := ids(fs); !slices.Equal(got, c.want) {
				t.Fatalf("rules %v, want %v\n%v", got, c.want, fs)
			}
			f := fs.ByRule(c.want[0])[0]
			if f.Path.String() != c.path {
				t.Errorf("path %s, want %s", f.Path, c.path)
			}
			if !strings.Contains(f.Detail, c.detail) {
				t.Errorf("detail %q should contain %q", f.Detail, c.detail)
			}
			if f.Severity != f.Rule.Severity {
				t.Errorf("severity %s, rule says %s", f.Severity, f.Rule.Severity)
			}
		})
	}
}

// A value of a closed-set label that is close to none of its values is not
// guessed at (the instance-type check reports it at plan), and one that is
// in the set is fine.
func TestNearMissOnlyWhenClose(t *testing.T) {
	for _, s := range []Spec{spec(LabelArch, "In", "riscv64"), spec(LabelArch, "In", "amd64", "arm64"), spec(LabelOS, "NotIn", "windows"),
		spec(LabelCapacityType, "In", "spot", "on-demand", "reserved"), spec("example.com/arch", "In", "arm")} {
		if fs := Validate([]Spec{s}, v1_14).ByRule("requirement-value-misspelled"); len(fs) > 0 {
			t.Errorf("%v: %v", s, fs)
		}
	}
	if got := NearMiss(LabelCapacityType, "reserve", v1_14); got != "reserved" {
		t.Errorf("NearMiss(reserve) = %q", got)
	}
	if got := NearMiss(LabelCapacityType, "reserve", versions.Karpenter{Minor: 2}); got != "" {
		t.Errorf("reserved capacity needs 1.3: NearMiss = %q", got)
	}
}

func TestValidateTooMany(t *testing.T) {
	specs := make([]Spec, 101)
	for i := range specs {
		specs[i] = spec(fmt.Sprintf("example.com/k%d", i), "Exists")
	}
	fs := Validate(specs, v1_14)
	if got := ids(fs); !slices.Equal(got, []string{"requirements-too-many"}) || fs[0].Path.String() != "requirements" {
		t.Fatalf("got %v", fs)
	}
	if fs := Validate(specs[:100], v1_14); len(fs) != 0 {
		t.Fatalf("100 is allowed: %v", fs)
	}
}

// What Karpenter accepts must pass, in the versions that accept it.
func TestValidateAcceptsValidRequirements(t *testing.T) {
	cases := []struct {
		spec    Spec
		version versions.Karpenter
	}{
		{spec(LabelArch, "In", "amd64", "arm64"), v1_8},
		{spec("beta.kubernetes.io/arch", "In", "arm64"), v1_8},
		{spec(LabelCapacityType, "In", "spot", "on-demand"), v1_0()},
		{withMin(spec(LabelInstanceFamily, "In", "m5", "m6i", "m7i"), 3), v1_14},
		{withMin(spec(LabelInstanceFamily, "Exists"), 50), v1_14},
		{spec(LabelInstanceCPU, "Gt", "0"), v1_14},
		{spec(LabelInstanceGeneration, "Gte", "6"), v1_9},
		{spec(LabelInstanceMemory, "Lte", "65536"), v1_9},
		{spec("example.com/team", "NotIn", "a"), v1_8},
		{spec("node.kubernetes.io/worker", "Exists"), v1_8},
		{spec("team.node-restriction.kubernetes.io/x", "Exists"), v1_8},
		{spec("kops.k8s.io/instancegroup", "In", "nodes"), v1_8},
		{spec("node-role.kubernetes.io/worker", "Exists"), v1_9},
		{spec("example.k8s.io/x", "Exists"), v1_9},
		{spec(LabelPlacementGroupPartition, "Gt", "1"), versions.Karpenter{Minor: 11, Patch: 0}},
		{spec(LabelInstanceTenancy, "In", "default"), v1_14},
		{spec(LabelInstanceGPUCount, "DoesNotExist"), v1_14},
		{spec(LabelZoneID, "In", "use1-az1"), v1_14},
		{spec(LabelWindowsBuild, "In", "10.0.20348"), v1_14},
	}
	for _, c := range cases {
		if fs := Validate([]Spec{c.spec}, c.version); len(fs) != 0 {
			t.Errorf("%+v on %s: unexpected %v", c.spec, c.version, fs)
		}
	}
}

func v1_0() versions.Karpenter { return versions.Karpenter{Minor: 0, Patch: 0} }

// Unknown parts (Terraform plan) never fail: each check that needs the part
// is skipped, the rest still run.
func TestValidateSkipsUnknownParts(t *testing.T) {
	cases := []Spec{
		{Key: LabelInstanceFamily, Operator: "In", Unknown: Unknown{Values: true}},
		{Key: LabelInstanceCPU, Operator: "Gt", Unknown: Unknown{Values: true}},
		{Operator: "In", Values: []string{"a"}, Unknown: Unknown{Key: true}},
		{Key: LabelInstanceFamily, Values: []string{"m5"}, MinValues: ptr(2), Unknown: Unknown{Operator: true}},
		{Key: LabelInstanceFamily, Operator: "In", Values: []string{"m5"}, Unknown: Unknown{MinValues: true}},
		{Key: LabelCapacityType, Operator: "In", Values: []string{"spot"}, MinValues: ptr(2), Unknown: Unknown{Values: true}},
	}
	for _, s := range cases {
		if fs := Validate([]Spec{s}, v1_14); len(fs) != 0 {
			t.Errorf("%+v: unexpected %v", s, fs)
		}
	}
	// Known parts are still checked next to unknown ones.
	fs := Validate([]Spec{{Key: "karpenter.sh/team", Operator: "In", Unknown: Unknown{Values: true}}}, v1_14)
	if got := ids(fs); !slices.Equal(got, []string{"requirement-key-karpenter-domain"}) {
		t.Errorf("known key with unknown values: %v", got)
	}
}

// The same key is restricted or not depending on the Karpenter version
// (kubernetes-sigs/karpenter#2586 in 1.9.0).
func TestRestrictedDomainsAcrossVersions(t *testing.T) {
	for _, key := range []string{"node-role.kubernetes.io/worker", "example.kubernetes.io/x", "storage.k8s.io/x"} {
		for _, v := range []versions.Karpenter{v1_0(), v1_8, {Minor: 8, Patch: -1}} {
			if got := ids(CheckKey(key, v, Root)); !slices.Equal(got, []string{"requirement-key-kubernetes-domain"}) {
				t.Errorf("%s on %s: %v", key, v, got)
			}
		}
		for _, v := range []versions.Karpenter{v1_9, v1_14} {
			if got := CheckKey(key, v, Root); len(got) != 0 {
				t.Errorf("%s on %s: %v", key, v, got)
			}
		}
	}
	// karpenter.sh and hostname are restricted in every version.
	for _, v := range []versions.Karpenter{v1_0(), v1_8, v1_9, v1_14} {
		if len(CheckKey("karpenter.sh/x", v, Root)) != 1 || len(CheckKey(LabelHostname, v, Root)) != 1 {
			t.Errorf("%s: karpenter.sh / hostname must stay restricted", v)
		}
	}
}

// Capacity reservations arrived in Karpenter 1.3 (capacity-type "reserved",
// the reservation id label), capacity blocks in 1.6 (the -type label),
// interruptible reservations in 1.10: before, the labels are outside the
// CRD's allow-list and "reserved" is no value Karpenter knows.
func TestCapacityReservationsAcrossVersions(t *testing.T) {
	kv := func(s string) versions.Karpenter {
		v, err := versions.ParseKarpenter(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		key       string
		first     string
		lastRefer string
	}{
		{LabelCapacityReservationID, "1.3", "1.2"},
		{LabelCapacityReservationType, "1.6", "1.5"},
		{LabelCapacityReservationInterruptible, "1.10", "1.9"},
	} {
		if got := CheckKey(c.key, kv(c.first), Root); len(got) != 0 {
			t.Errorf("%s on %s: %v", c.key, c.first, got)
		}
		got := CheckKey(c.key, kv(c.lastRefer), Root)
		if len(got) != 1 || !strings.Contains(got[0].Detail, "exists from Karpenter "+c.first) {
			t.Errorf("%s on %s: %v", c.key, c.lastRefer, got)
		}
	}
	reserved := Spec{Key: LabelCapacityType, Operator: "In", Values: []string{"reserved"}}
	if got := ids(ValidateOne(reserved, kv("1.2"), Root.Index(0))); !slices.Equal(got, []string{"requirement-no-known-value"}) {
		t.Errorf("reserved on 1.2: %v", got)
	}
	if got := ValidateOne(reserved, kv("1.3"), Root.Index(0)); len(got) != 0 {
		t.Errorf("reserved on 1.3: %v", got)
	}
}
