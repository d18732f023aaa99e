package readiness

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func sub(id, vpc, zone string, free int32) awsclient.Subnet {
	return awsclient.Subnet{ID: id, VPCID: vpc, Zone: zone, ZoneID: "id-" + zone, AvailableIPs: free}
}

// selection builds what awsclient would answer from what each term matched.
func selection[T any](id func(T) string, byTerm ...[]T) awsclient.Selection[T] {
	sel := awsclient.Selection[T]{ByTerm: byTerm}
	seen := map[string]bool{}
	for _, items := range byTerm {
		for _, it := range items {
			if !seen[id(it)] {
				seen[id(it)] = true
				sel.All = append(sel.All, it)
			}
		}
	}
	return sel
}

func subnetSel(byTerm ...[]awsclient.Subnet) awsclient.Selection[awsclient.Subnet] {
	return selection(func(s awsclient.Subnet) string { return s.ID }, byTerm...)
}

func groupSel(byTerm ...[]awsclient.SecurityGroup) awsclient.SecurityGroupSelection {
	return awsclient.SecurityGroupSelection{Selection: selection(func(g awsclient.SecurityGroup) string { return g.ID }, byTerm...)}
}

// ruleIDs lists "<rule>@<path>/<severity>" of findings, for compact tables.
func ruleIDs(fs rules.Findings) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Rule.ID+"@"+f.Path.String()+"/"+f.Severity.String())
	}
	return out
}

func TestRoleName(t *testing.T) {
	for in, want := range map[string]string{
		"KarpenterNodeRole-demo":                          "KarpenterNodeRole-demo",
		"eks/KarpenterNodeRole-demo":                      "KarpenterNodeRole-demo",
		"arn:aws:iam::123456789012:role/eks/NodeRole-one": "NodeRole-one",
	} {
		if got := RoleName(in); got != want {
			t.Errorf("RoleName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStatusConversions(t *testing.T) {
	subnets := Subnets(subnetSel([]awsclient.Subnet{sub("subnet-a", "vpc-1", "z-a", 10)}))
	if want := []Subnet{{ID: "subnet-a", Zone: "z-a", ZoneID: "id-z-a", AvailableIPAddresses: 10, VPCID: "vpc-1"}}; !reflect.DeepEqual(subnets, want) {
		t.Errorf("Subnets %+v", subnets)
	}
	groups := SecurityGroups(groupSel([]awsclient.SecurityGroup{{ID: "sg-1", Name: "n", VPCID: "vpc-1", Tags: map[string]string{"a": "b"}}}))
	if want := []SecurityGroup{{ID: "sg-1", Name: "n", VPCID: "vpc-1"}}; !reflect.DeepEqual(groups, want) {
		t.Errorf("SecurityGroups %+v", groups)
	}
}

func TestCapacityReservations(t *testing.T) {
	cr := func(id, kind, match string, end time.Time) awsclient.CapacityReservation {
		return awsclient.CapacityReservation{ID: id, ReservationType: kind, InstanceMatchCriteria: match, EndDate: end, InstanceType: "m5.large", Zone: "z"}
	}
	sel := awsclient.Selection[awsclient.CapacityReservation]{All: []awsclient.CapacityReservation{
		cr("cr-open", "", "open", time.Time{}),
		cr("cr-ended", "default", "targeted", now.Add(-time.Minute)),
		cr("cr-ends-now", "default", "targeted", now),
		cr("cr-block-soon", "capacity-block", "targeted", now.Add(30*time.Minute)),
		cr("cr-block-later", "capacity-block", "targeted", now.Add(41*time.Minute)),
		cr("cr-default-soon", "default", "open", now.Add(30*time.Minute)),
		cr("cr-odd", "default", "future-criteria", time.Time{}),
	}}
	got := map[string]string{}
	for _, r := range CapacityReservations(sel, now) {
		got[r.ID] = r.ReservationType + "/" + r.State
	}
	want := map[string]string{
		"cr-open": "default/active", "cr-block-soon": "capacity-block/expiring", "cr-block-later": "capacity-block/active",
		"cr-default-soon": "default/active",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestConditions(t *testing.T) {
	someSubnets := subnetSel([]awsclient.Subnet{sub("subnet-a", "vpc-1", "z-a", 100)})
	someGroups := groupSel([]awsclient.SecurityGroup{{ID: "sg-1", VPCID: "vpc-1"}})
	groupTerms := []awsclient.SecurityGroupTerm{{Name: "x"}}
	found, missing := &awsclient.Role{Found: true}, &awsclient.Role{}
	status := func(cs []Condition) string {
		var parts []string
		for _, c := range cs {
			parts = append(parts, c.Type+"="+c.Status+"/"+c.Reason)
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct {
		name string
		c    Class
		o    Observed
		opt  Options
		want string
	}{
		{"all ready", Class{SecurityGroupTerms: groupTerms, Role: "r"}, Observed{Subnets: someSubnets, SecurityGroups: someGroups, Role: found}, Options{},
			"SubnetsReady=True/SubnetsReady SecurityGroupsReady=True/SecurityGroupsReady InstanceProfileReady=True/InstanceProfileReady"},
		{"no subnets, no groups", Class{SecurityGroupTerms: groupTerms, Role: "r"}, Observed{Role: found}, Options{},
			"SubnetsReady=False/SubnetsNotFound SecurityGroupsReady=False/SecurityGroupsNotFound InstanceProfileReady=True/InstanceProfileReady"},
		{"no group terms at all", Class{Role: "r"}, Observed{Subnets: someSubnets, Role: found}, Options{},
			"SubnetsReady=True/SubnetsReady SecurityGroupsReady=True/SecurityGroupsReady InstanceProfileReady=True/InstanceProfileReady"},
		{"missing role", Class{SecurityGroupTerms: groupTerms, Role: "r"}, Observed{Subnets: someSubnets, SecurityGroups: someGroups, Role: missing}, Options{},
			"SubnetsReady=True/SubnetsReady SecurityGroupsReady=True/SecurityGroupsReady InstanceProfileReady=Unknown/AwaitingReconciliation"},
		{"missing instance profile is not checked by Karpenter", Class{SecurityGroupTerms: groupTerms, InstanceProfile: "p"},
			Observed{Subnets: someSubnets, SecurityGroups: someGroups, InstanceProfile: &awsclient.InstanceProfile{}}, Options{},
			"SubnetsReady=True/SubnetsReady SecurityGroupsReady=True/SecurityGroupsReady InstanceProfileReady=True/InstanceProfileReady"},
		{"capacity reservations gate", Class{SecurityGroupTerms: groupTerms, Role: "r"}, Observed{Subnets: someSubnets, SecurityGroups: someGroups, Role: found},
			Options{CapacityReservations: true},
			"SubnetsReady=True/SubnetsReady SecurityGroupsReady=True/SecurityGroupsReady InstanceProfileReady=True/InstanceProfileReady CapacityReservationsReady=True/CapacityReservationsReady"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := Conditions(tc.c, tc.o, tc.opt)
			if got := status(cs); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			for _, c := range cs {
				if c.Status == "False" && c.Message == "" || c.Status == "Unknown" && c.Message != MessageAwaitingReconciliation {
					t.Errorf("%s: message %q", c.Type, c.Message)
				}
			}
		})
	}
}

func TestZonesAndFamilies(t *testing.T) {
	subnets := []Subnet{{ID: "1", Zone: "b", ZoneID: "id-b"}, {ID: "2", Zone: "a", ZoneID: "id-a"}, {ID: "3", Zone: "b", ZoneID: "id-b"}}
	if got := Zones(subnets); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Zones %v", got)
	}
	if got := ZoneIDs(subnets); !slices.Equal(got, []string{"id-a", "id-b"}) {
		t.Errorf("ZoneIDs %v", got)
	}
	for in, want := range map[string]string{"p4d.24xlarge": "p4d", "u7i-12tb.224xlarge": "u7i-12tb", "m5": "m5"} {
		if got := Family(in); got != want {
			t.Errorf("Family(%q) = %q", in, got)
		}
	}
	offerings := map[string][]string{"a": {"m5.large", "g5.xlarge"}, "b": {"m5.large"}, "d": {"p4d.24xlarge"}}
	if got := FamiliesNotOffered([]string{"p4d", "g5", "m5", "c7g"}, []string{"a", "b"}, offerings); !slices.Equal(got, []string{"p4d", "c7g"}) {
		t.Errorf("FamiliesNotOffered %v", got)
	}
	if got := FamiliesNotOffered([]string{"g5"}, []string{"b"}, offerings); !slices.Equal(got, []string{"g5"}) {
		t.Errorf("g5 in b: %v", got)
	}
	for _, tc := range []struct {
		name string
		p    Pool
		want []string
	}{
		{"unconstrained", Pool{}, []string{"a", "b"}},
		{"by name", Pool{Zones: []string{"b", "d"}}, []string{"b"}},
		{"by zone id", Pool{ZoneIDs: []string{"id-a"}}, []string{"a"}},
		{"both, disjoint", Pool{Zones: []string{"b"}, ZoneIDs: []string{"id-a"}}, nil},
	} {
		if got := UsableZones(tc.p, subnets); !slices.Equal(got, tc.want) {
			t.Errorf("%s: UsableZones %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSubnetFindings(t *testing.T) {
	a, b := sub("subnet-a", "vpc-1", "z-a", 100), sub("subnet-b", "vpc-1", "z-b", 100)
	tags := func(v string) awsclient.SubnetTerm { return awsclient.SubnetTerm{Tags: map[string]string{"k": v}} }
	for _, tc := range []struct {
		name   string
		terms  []awsclient.SubnetTerm
		sel    awsclient.Selection[awsclient.Subnet]
		want   []string
		detail string
	}{
		{"all match", []awsclient.SubnetTerm{tags("x"), {ID: "subnet-b"}}, subnetSel([]awsclient.Subnet{a}, []awsclient.Subnet{b}), []string{}, ""},
		{"nothing matches", []awsclient.SubnetTerm{tags("typo"), {ID: "subnet-z"}}, subnetSel(nil, nil),
			[]string{"subnet-selector-matches-nothing@subnet_selector_terms/error", "subnet-id-not-found@subnet_selector_terms[1].id/error"},
			`term [0] {tags: {"k": "typo"}} sent (tag:k=typo) and matched nothing; term [1] {id: "subnet-z"} sent (subnet-id=subnet-z) and matched nothing`},
		{"one id missing among others", []awsclient.SubnetTerm{{ID: "subnet-a"}, {ID: "subnet-z"}}, subnetSel([]awsclient.Subnet{a}, nil),
			[]string{"subnet-id-not-found@subnet_selector_terms[1].id/error"}, `Subnet "subnet-z" does not exist`},
		{"a dead tags term", []awsclient.SubnetTerm{tags("x"), tags("old")}, subnetSel([]awsclient.Subnet{a, b}, nil),
			[]string{"selector-term-matches-nothing@subnet_selector_terms[1]/warning"}, "the other terms match 2 subnets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sel.Queries = awsclient.SubnetQueries(tc.terms)
			checkFindings(t, SubnetFindings(tc.terms, tc.sel), tc.want, tc.detail)
		})
	}
}

func TestSecurityGroupFindings(t *testing.T) {
	g1 := awsclient.SecurityGroup{ID: "sg-1", Name: "one", VPCID: "vpc-1"}
	tagged := awsclient.SecurityGroup{ID: "sg-t", Name: "terraform-2025", VPCID: "vpc-1", Tags: map[string]string{"Name": "extra"}}
	for _, tc := range []struct {
		name    string
		terms   []awsclient.SecurityGroupTerm
		sel     awsclient.SecurityGroupSelection
		nameTag map[int][]awsclient.SecurityGroup
		want    []string
		detail  string
	}{
		{"all match", []awsclient.SecurityGroupTerm{{Name: "one"}}, groupSel([]awsclient.SecurityGroup{g1}), nil, []string{}, ""},
		{"a name that is a Name tag", []awsclient.SecurityGroupTerm{{Name: "one"}, {Name: "extra"}}, groupSel([]awsclient.SecurityGroup{g1}, nil),
			map[int][]awsclient.SecurityGroup{1: {tagged}},
			[]string{"security-group-name-not-found@security_group_selector_terms[1].name/error"},
			`It is the Name tag of sg-t (group name "terraform-2025"): select it by its id`},
		{"a name nobody has", []awsclient.SecurityGroupTerm{{Name: "one"}, {Name: "nope"}}, groupSel([]awsclient.SecurityGroup{g1}, nil), nil,
			[]string{"security-group-name-not-found@security_group_selector_terms[1].name/error"}, "No group has it as its Name tag either."},
		{"missing id, dead tags term, nothing at all", []awsclient.SecurityGroupTerm{{ID: "sg-z"}, {Tags: map[string]string{"a": "*"}}},
			groupSel(nil, nil), nil,
			[]string{"security-group-selector-matches-nothing@security_group_selector_terms/error", "security-group-id-not-found@security_group_selector_terms[0].id/error"},
			`term [1] {tags: {"a": "*"}} sent (tag-key=a) and matched nothing`},
		{"a dead tags term among matches", []awsclient.SecurityGroupTerm{{ID: "sg-1"}, {Tags: map[string]string{"a": "b"}}},
			groupSel([]awsclient.SecurityGroup{g1}, nil), nil,
			[]string{"selector-term-matches-nothing@security_group_selector_terms[1]/warning"}, "no security group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sel.Queries = awsclient.SecurityGroupQueries(tc.terms)
			tc.sel.NameTagMatches = tc.nameTag
			fs := SecurityGroupFindings(tc.terms, tc.sel)
			checkFindings(t, fs, tc.want, tc.detail)
			// A name that is a Name tag: the fix selects the group by its
			// id instead, or by the tag.
			if tc.nameTag != nil && (!rulestest.FixWrites(fs[0], "security_group_selector_terms[1].id", `"sg-t"`) ||
				!rulestest.FixWrites(fs[0], "security_group_selector_terms[1].name", "") ||
				!rulestest.FixWrites(fs[0], `security_group_selector_terms[1].tags["Name"]`, `"extra"`)) {
				t.Errorf("fix: %+v", fs[0].Fix)
			}
		})
	}
}

func TestNetworkFindings(t *testing.T) {
	s1, s2 := Subnet{ID: "subnet-1", VPCID: "vpc-1"}, Subnet{ID: "subnet-2", VPCID: "vpc-2"}
	g1, g2 := SecurityGroup{ID: "sg-1", VPCID: "vpc-1"}, SecurityGroup{ID: "sg-2", VPCID: "vpc-2"}
	for _, tc := range []struct {
		name    string
		subnets []Subnet
		groups  []SecurityGroup
		quote   string
	}{
		{"one VPC", []Subnet{s1}, []SecurityGroup{g1}, ""},
		{"nothing selected", nil, []SecurityGroup{g1}, ""},
		{"groups in another VPC", []Subnet{s1}, []SecurityGroup{g2}, `"Security group sg-2 and subnet subnet-1 belong to different networks"`},
		{"groups in both VPCs", []Subnet{s1}, []SecurityGroup{g1, g2}, `"Security group sg-2 and subnet subnet-1 belong to different networks"`},
		{"subnets in both VPCs", []Subnet{s1, s2}, []SecurityGroup{g1}, `"Security group sg-1 and subnet subnet-2 belong to different networks"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := NetworkFindings(tc.subnets, tc.groups)
			if tc.quote == "" {
				if len(fs) > 0 {
					t.Fatalf("unexpected %v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != ruleDifferentVPCs || !strings.Contains(fs[0].Detail, tc.quote) {
				t.Fatalf("got %v, want one finding quoting %s", fs, tc.quote)
			}
		})
	}
}

func TestFreeAddressFindings(t *testing.T) {
	subnets := []Subnet{
		{ID: "subnet-big-c", Zone: "c", AvailableIPAddresses: 8000},
		{ID: "subnet-tiny-c", Zone: "c", AvailableIPAddresses: 3},
		{ID: "subnet-tiny-d", Zone: "d", AvailableIPAddresses: 3},
		{ID: "subnet-edge-e", Zone: "e", AvailableIPAddresses: 32},
	}
	fs := FreeAddressFindings(subnets, 32)
	if got := ruleIDs(fs); !slices.Equal(got, []string{"subnet-free-addresses-low@subnet_selector_terms/warning"}) {
		t.Fatalf("got %v", got)
	}
	if !strings.Contains(fs[0].Detail, "Subnet subnet-tiny-d has 3 free addresses, and it is the class's best subnet in d") {
		t.Errorf("detail %s", fs[0].Detail)
	}
}

func TestCapacityReservationFindings(t *testing.T) {
	live := awsclient.CapacityReservation{ID: "cr-live"}
	ended := awsclient.CapacityReservation{ID: "cr-ended", EndDate: now.Add(-time.Hour)}
	terms := []awsclient.CapacityReservationTerm{
		{ID: "cr-live"}, {ID: "cr-gone"}, {Tags: map[string]string{"a": "b"}}, {OwnerID: "123456789012"},
	}
	sel := awsclient.Selection[awsclient.CapacityReservation]{
		ByTerm:  [][]awsclient.CapacityReservation{{live}, nil, {ended}, nil},
		Queries: awsclient.CapacityReservationQueries(terms),
	}
	fs := CapacityReservationFindings(terms, sel, now)
	want := []string{"capacity-reservation-not-found@capacity_reservation_selector_terms[1].id/warning",
		"capacity-reservation-not-found@capacity_reservation_selector_terms[2]/warning"}
	if got := ruleIDs(fs); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !strings.Contains(fs[1].Detail, "the ones it matches have ended (cr-ended)") || !strings.Contains(fs[0].Detail, "none is active") {
		t.Errorf("details: %s | %s", fs[0].Detail, fs[1].Detail)
	}
}

func TestIdentityFindings(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Class
		o    Observed
		want []string
	}{
		{"role found", Class{Role: "r"}, Observed{Role: &awsclient.Role{Found: true}}, []string{}},
		{"role missing", Class{Role: "eks/r"}, Observed{Role: &awsclient.Role{Name: "r"}}, []string{"role-not-found@role/error"}},
		{"profile missing", Class{InstanceProfile: "p"}, Observed{InstanceProfile: &awsclient.InstanceProfile{}}, []string{"instance-profile-not-found@instance_profile/error"}},
		{"profile without role", Class{InstanceProfile: "p"}, Observed{InstanceProfile: &awsclient.InstanceProfile{Found: true}},
			[]string{"instance-profile-without-role@instance_profile/warning"}},
		{"profile with role", Class{InstanceProfile: "p"}, Observed{InstanceProfile: &awsclient.InstanceProfile{Found: true, Roles: []string{"r"}}}, []string{}},
		{"not looked up", Class{Role: "r"}, Observed{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ruleIDs(IdentityFindings(tc.c, tc.o)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCheckPool(t *testing.T) {
	subnets := []Subnet{{ID: "1", Zone: "a", ZoneID: "id-a"}, {ID: "2", Zone: "b", ZoneID: "id-b"}}
	offerings := map[string][]string{"a": {"m5.large"}, "b": {"m5.large", "g5.xlarge"}, "d": {"p4d.24xlarge"}}
	families := rules.Root("requirements").Index(1)
	for _, tc := range []struct {
		name string
		p    Pool
		want []string
	}{
		{"fine", Pool{Families: []string{"m5", "g5"}}, []string{}},
		{"zones without subnets", Pool{Zones: []string{"d"}, Families: []string{"p4d"}}, []string{"nodepool-zones-without-subnet@requirements/error"}},
		{"some families not offered", Pool{Families: []string{"m5", "p4d"}, FamiliesPath: families},
			[]string{"nodepool-families-not-offered@requirements[1]/warning"}},
		{"no family offered", Pool{Families: []string{"p4d"}}, []string{"nodepool-families-not-offered@requirements/error"}},
		{"offered only outside the pool's zones", Pool{Zones: []string{"a"}, Families: []string{"g5"}},
			[]string{"nodepool-families-not-offered@requirements/error"}},
		{"no families known", Pool{Zones: []string{"a"}}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ruleIDs(CheckPool(tc.p, subnets, offerings)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if fs := CheckPool(Pool{Zones: []string{"d"}}, nil, offerings); len(fs) != 0 {
		t.Errorf("a class without subnets: %v (its own finding covers it)", fs)
	}
}

// checkFindings compares findings with "<rule>@<path>/<severity>" entries
// and looks for detail in the first one.
// Evaluate leaves the checks whose inputs the plan does not know to apply:
// the same answers give the group, reservation and role findings only when
// those inputs are known.
func TestEvaluateSkipsUnknownInputs(t *testing.T) {
	c := Class{
		SubnetTerms:              []awsclient.SubnetTerm{{ID: "subnet-a"}},
		SecurityGroupTerms:       []awsclient.SecurityGroupTerm{{ID: "sg-gone"}},
		CapacityReservationTerms: []awsclient.CapacityReservationTerm{{ID: "cr-gone"}},
		Role:                     "missing",
	}
	o := Observed{
		Subnets:        subnetSel([]awsclient.Subnet{sub("subnet-a", "vpc-1", "us-east-1a", 1000)}),
		SecurityGroups: groupSel(nil),
		CapacityReservations: awsclient.Selection[awsclient.CapacityReservation]{
			ByTerm: [][]awsclient.CapacityReservation{nil}, Queries: awsclient.CapacityReservationQueries(c.CapacityReservationTerms),
		},
		Role: &awsclient.Role{Name: "missing"},
	}
	known := ruleIDs(Evaluate(c, o, Options{Now: now}).Findings)
	for _, id := range []string{"security-group", "capacity-reservation-not-found", "role-not-found"} {
		if !slices.ContainsFunc(known, func(f string) bool { return strings.HasPrefix(f, id) }) {
			t.Errorf("known inputs: no %s finding in %v", id, known)
		}
	}
	unknown := Evaluate(c, o, Options{Now: now, UnknownSecurityGroups: true, UnknownCapacityReservations: true, UnknownIdentity: true})
	if got := ruleIDs(unknown.Findings); len(got) != 0 {
		t.Errorf("unknown inputs: got %v, want none", got)
	}
}

func checkFindings(t *testing.T, fs rules.Findings, want []string, detail string) {
	t.Helper()
	if got := ruleIDs(fs); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if detail != "" && !strings.Contains(fs[0].Detail, detail) {
		t.Errorf("detail %q lacks %q", fs[0].Detail, detail)
	}
}

// ZoneIDs returns the zone ids of subnets, sorted and without repeats.
func ZoneIDs(subnets []Subnet) []string {
	set := map[string]bool{}
	for _, s := range subnets {
		set[s.ZoneID] = true
	}
	return slices.Sorted(maps.Keys(set))
}
