package readiness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

// example is what the docs examples configure, decoded from their HCL.
type example struct {
	class Class
	pool  *Pool
}

// decodeExample reads the class and pool of a rule's example: the block
// syntax of the provider's resources, literal values only.
func decodeExample(t *testing.T, src string) example {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("example is not HCL: %s\n%s", diags.Error(), src)
	}
	var ex example
	for _, res := range file.Body.(*hclsyntax.Body).Blocks {
		if res.Type != "resource" || len(res.Labels) != 2 {
			t.Fatalf("unexpected block %s %v", res.Type, res.Labels)
		}
		body := res.Body
		switch res.Labels[0] {
		case "karpenter_ec2nodeclass":
			ex.class.Role = attrString(t, body, "role")
			ex.class.InstanceProfile = attrString(t, body, "instance_profile")
			for _, b := range body.Blocks {
				switch b.Type {
				case "subnet_selector_terms":
					ex.class.SubnetTerms = append(ex.class.SubnetTerms, awsclient.SubnetTerm{
						ID: attrString(t, b.Body, "id"), Tags: attrMap(t, b.Body, "tags")})
				case "security_group_selector_terms":
					ex.class.SecurityGroupTerms = append(ex.class.SecurityGroupTerms, awsclient.SecurityGroupTerm{
						ID: attrString(t, b.Body, "id"), Name: attrString(t, b.Body, "name"), Tags: attrMap(t, b.Body, "tags")})
				case "capacity_reservation_selector_terms":
					ex.class.CapacityReservationTerms = append(ex.class.CapacityReservationTerms, awsclient.CapacityReservationTerm{
						ID: attrString(t, b.Body, "id"), OwnerID: attrString(t, b.Body, "owner_id"),
						InstanceMatchCriteria: attrString(t, b.Body, "instance_match_criteria"), Tags: attrMap(t, b.Body, "tags")})
				case "ami_selector_terms":
				default:
					t.Fatalf("unexpected block %s in the class", b.Type)
				}
			}
		case "karpenter_nodepool":
			ex.pool = &Pool{}
			for _, b := range body.Blocks {
				if b.Type != "requirements" || attrString(t, b.Body, "operator") != "In" {
					t.Fatalf("unexpected block %s in the pool", b.Type)
				}
				values := attrList(t, b.Body, "values")
				switch key := attrString(t, b.Body, "key"); key {
				case "topology.kubernetes.io/zone":
					ex.pool.Zones = values
				case "karpenter.k8s.aws/instance-family":
					ex.pool.Families = values
				default:
					t.Fatalf("unexpected requirement %s", key)
				}
			}
		default:
			t.Fatalf("unexpected resource %s", res.Labels[0])
		}
	}
	return ex
}

func attrValue(t *testing.T, body *hclsyntax.Body, name string) cty.Value {
	t.Helper()
	a, ok := body.Attributes[name]
	if !ok {
		return cty.NilVal
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", name, diags.Error())
	}
	return v
}

func attrString(t *testing.T, body *hclsyntax.Body, name string) string {
	if v := attrValue(t, body, name); v != cty.NilVal {
		return v.AsString()
	}
	return ""
}

func attrMap(t *testing.T, body *hclsyntax.Body, name string) map[string]string {
	v := attrValue(t, body, name)
	if v == cty.NilVal {
		return nil
	}
	out := map[string]string{}
	for k, e := range v.AsValueMap() {
		out[k] = e.AsString()
	}
	return out
}

func attrList(t *testing.T, body *hclsyntax.Body, name string) []string {
	var out []string
	for _, e := range attrValue(t, body, name).AsValueSlice() {
		out = append(out, e.AsString())
	}
	return out
}

// runExample plans an example against the emulator's default fixtures as
// the provider will: lookup, Evaluate, and CheckPool for a pool.
func runExample(t *testing.T, c *awsclient.Cache, ex example) rules.Findings {
	t.Helper()
	ctx := context.Background()
	o, err := lookup(ctx, c, ex.class)
	if err != nil {
		t.Fatal(err)
	}
	r := Evaluate(ex.class, o, Options{Now: now, CapacityReservations: true})
	fs := r.Findings
	if ex.pool != nil {
		off, err := c.OfferingsByZone(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, CheckPool(*ex.pool, r.Subnets, off)...)
	}
	return fs
}

func emulatorCache(t *testing.T, f *awsemu.Fixtures) *awsclient.Cache {
	t.Helper()
	url, _ := awsemutest.StartWith(t, f)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return awsclient.NewCache(awsclient.NewClients(awsclient.Config{
		Region: "us-east-1", Endpoints: awsclient.Endpoints{EC2: url, IAM: url}, MaxRetries: 0,
	}))
}

func defaultFixtures(t *testing.T) *awsemu.Fixtures {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRuleExamples: every readiness rule's Bad example, planned against
// the emulator's fixtures, triggers the rule; its Good example neither
// triggers it nor fails the plan.
func TestRuleExamples(t *testing.T) {
	c := emulatorCache(t, defaultFixtures(t))
	n := 0
	for _, r := range rules.All() {
		if r.Category != Category {
			continue
		}
		n++
		if r == RuleChecksSkipped || r == RuleReadDenied {
			continue // a provider block, not a class: the provider's acceptance tests trigger it
		}
		t.Run(r.ID, func(t *testing.T) {
			if !strings.Contains(r.Bad, `resource "karpenter_ec2nodeclass"`) || strings.Contains(r.Bad+r.Good, "= [{") || r.Bad == r.Good {
				t.Fatalf("examples must be distinct karpenter_ec2nodeclass resources in block syntax")
			}
			bad := runExample(t, c, decodeExample(t, r.Bad))
			if len(bad.ByRule(r.ID)) == 0 {
				t.Errorf("Bad example does not trigger %s (got %v):\n%s", r.ID, ruleIDs(bad), r.Bad)
			}
			good := runExample(t, c, decodeExample(t, r.Good))
			if len(good.ByRule(r.ID)) > 0 || good.HasErrors() {
				t.Errorf("Good example of %s has findings %v:\n%s", r.ID, good, r.Good)
			}
		})
	}
	if n != 16 {
		t.Errorf("%d readiness rules, want 16", n)
	}
	// terraform fmt layout, blocks for configuration objects.
	rulestest.CheckExamples(t, Category)
}

// TestDemoClass: the class most examples use resolves as Karpenter would
// resolve it against the fixtures.
func TestDemoClass(t *testing.T) {
	c := emulatorCache(t, defaultFixtures(t))
	ex := decodeExample(t, ruleSubnetsNotFound.Good)
	o, err := lookup(context.Background(), c, ex.class)
	if err != nil {
		t.Fatal(err)
	}
	r := Evaluate(ex.class, o, Options{Now: now})
	want := []Subnet{
		{ID: awsemu.SubnetDemoPrivateA, Zone: awsemu.ZoneA, ZoneID: awsemu.ZoneIDA, AvailableIPAddresses: 8123, VPCID: awsemu.VPCDemo},
		{ID: awsemu.SubnetDemoPrivateC, Zone: awsemu.ZoneC, ZoneID: awsemu.ZoneIDC, AvailableIPAddresses: 8051, VPCID: awsemu.VPCDemo},
		{ID: awsemu.SubnetDemoPrivateB, Zone: awsemu.ZoneB, ZoneID: awsemu.ZoneIDB, AvailableIPAddresses: 7990, VPCID: awsemu.VPCDemo},
	}
	if len(r.Subnets) != 3 || r.Subnets[0] != want[0] || r.Subnets[1] != want[1] || r.Subnets[2] != want[2] {
		t.Errorf("subnets %+v", r.Subnets)
	}
	if len(r.SecurityGroups) != 1 || r.SecurityGroups[0] != (SecurityGroup{ID: awsemu.SecurityGroupDemoNode, Name: "demo-node", VPCID: awsemu.VPCDemo}) {
		t.Errorf("security groups %+v", r.SecurityGroups)
	}
	if len(r.Findings) != 0 || len(r.Conditions) != 3 {
		t.Errorf("findings %v, conditions %v", r.Findings, r.Conditions)
	}
	for _, cond := range r.Conditions {
		if cond.Status != "True" {
			t.Errorf("condition %+v", cond)
		}
	}
}

// TestNotServedFixtures: a fixture set without subnets.json makes lookup
// stop at the first question with ErrNotServed.
func TestNotServedFixtures(t *testing.T) {
	f := defaultFixtures(t)
	f.Subnets = nil
	c := emulatorCache(t, f)
	_, err := lookup(context.Background(), c, decodeExample(t, ruleSubnetsNotFound.Good).class)
	if !errors.Is(err, awsclient.ErrNotServed) {
		t.Fatalf("want ErrNotServed, got %v", err)
	}
}

// TestReservationsOfTheDemoClass: capacity reservations resolve to what
// Karpenter's status would hold.
func TestReservationsOfTheDemoClass(t *testing.T) {
	c := emulatorCache(t, defaultFixtures(t))
	class := decodeExample(t, ruleReservationNotFound.Good).class
	class.CapacityReservationTerms = append(class.CapacityReservationTerms,
		awsclient.CapacityReservationTerm{ID: awsemu.CapacityReservationBlockP4d},
		awsclient.CapacityReservationTerm{Tags: map[string]string{"karpenter.sh/discovery": "demo"}})
	o, err := lookup(context.Background(), c, class)
	if err != nil {
		t.Fatal(err)
	}
	r := Evaluate(class, o, Options{Now: now, CapacityReservations: true})
	var got []string
	for _, cr := range r.CapacityReservations {
		got = append(got, cr.ID+" "+cr.InstanceType+" "+cr.Zone+" "+cr.ReservationType+" "+cr.State)
	}
	want := []string{
		awsemu.CapacityReservationDemoM5 + " m5.large us-east-1a default active",
		awsemu.CapacityReservationBlockP4d + " p4d.24xlarge us-east-1d capacity-block active",
	}
	if strings.Join(got, "|") != strings.Join(slices.Sorted(slices.Values(want)), "|") {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(r.Findings) != 0 || len(r.Conditions) != 4 || r.Conditions[3].Type != ConditionCapacityReservationsReady {
		t.Errorf("findings %v, conditions %v", r.Findings, r.Conditions)
	}
}

// lookup asks src what Evaluate needs, one question after the other, for
// the examples (checks.ReadClass is the readers' reader, asking
// concurrently and skipping denied reads; it imports this package).
func lookup(ctx context.Context, src Source, c Class) (Observed, error) {
	var o Observed
	var err error
	if o.Subnets, err = src.SelectSubnets(ctx, c.SubnetTerms); err != nil {
		return Observed{}, err
	}
	if o.SecurityGroups, err = src.SelectSecurityGroups(ctx, c.SecurityGroupTerms); err != nil {
		return Observed{}, err
	}
	if len(c.CapacityReservationTerms) > 0 {
		if o.CapacityReservations, err = src.SelectCapacityReservations(ctx, c.CapacityReservationTerms); err != nil {
			return Observed{}, err
		}
	}
	switch {
	case c.Role != "":
		r, err := src.GetRole(ctx, RoleName(c.Role))
		if err != nil {
			return Observed{}, err
		}
		o.Role = &r
	case c.InstanceProfile != "":
		p, err := src.GetInstanceProfile(ctx, c.InstanceProfile)
		if err != nil {
			return Observed{}, err
		}
		o.InstanceProfile = &p
	}
	return o, nil
}
