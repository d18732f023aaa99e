package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
)

// The readiness tests plan against the emulator's default fixtures
// (internal/awsemu/testdata/README.md): cluster demo's VPC with three
// private subnets and a node security group tagged karpenter.sh/discovery =
// demo, a legacy VPC, a misspelt tag, an exhausted subnet, p4d offered only
// in us-east-1d, the node role and two instance profiles.

const (
	demoSubnetTerm = "  subnet_selector_terms {\n    tags = { \"karpenter.sh/discovery\" = \"demo\" }\n  }\n"
	demoGroupTerm  = "  security_group_selector_terms {\n    tags = { \"karpenter.sh/discovery\" = \"demo\" }\n  }\n"
)

// rdClass is a class named name with the demo role and image; body holds
// its selector terms (and anything else).
func rdClass(name, body string) string {
	return fmt.Sprintf(`
resource "karpenter_ec2nodeclass" %[1]q {
  name = %[1]q
  role = "KarpenterNodeRole-demo"
  ami_selector_terms { alias = "al2023@v20251209" }
%[2]s}
`, name, body)
}

// rdProfileClass is rdClass with instance_profile instead of role.
func rdProfileClass(profile string) string {
	return fmt.Sprintf(`
resource "karpenter_ec2nodeclass" "x" {
  name             = "x"
  instance_profile = %q
  ami_selector_terms { alias = "al2023@v20251209" }
%s%s}
`, profile, demoSubnetTerm, demoGroupTerm)
}

// rdPool is a pool of class x with one In requirement.
func rdPool(key, values string) string {
	return fmt.Sprintf(`
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = karpenter_ec2nodeclass.x.node_class
  requirements {
    key      = %q
    operator = "In"
    values   = [%s]
  }
}
`, key, values)
}

func subnetTerm(attr string) string { return "  subnet_selector_terms {\n    " + attr + "\n  }\n" }
func groupTerm(attr string) string {
	return "  security_group_selector_terms {\n    " + attr + "\n  }\n"
}

// Every readiness error fails the plan with its rule id, what AWS answered
// and the fix.
func TestAccReadinessErrors(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	demoClass := rdClass("x", demoSubnetTerm+demoGroupTerm)
	cases := map[string]struct {
		config string
		want   []string
	}{
		"subnets match nothing": {rdClass("x", subnetTerm(`tags = { "karpenter.sh/discovery" = "dem0" }`)+demoGroupTerm),
			[]string{"subnet-selector-matches-nothing", "subnet_selector_terms match no subnet", "No subnet matches subnetSelectorTerms", "tag:karpenter.sh/discovery=dem0", "SubnetsNotFound"}},
		"groups match nothing": {rdClass("x", demoSubnetTerm+groupTerm(`tags = { "karpenter.sh/discovery" = "prod" }`)),
			[]string{"security-group-selector-matches-nothing", "tag:karpenter.sh/discovery=prod", "SecurityGroupsNotFound"}},
		"subnet id typo": {rdClass("x", demoGroupTerm+subnetTerm(`id = "`+awsemu.SubnetDemoPrivateA+`"`)+subnetTerm(`id = "subnet-0f470d0012baca035"`)),
			[]string{"subnet-id-not-found", `Subnet "subnet-0f470d0012baca035" does not exist`, "aws/karpenter-provider-aws#5292"}},
		"group id typo": {rdClass("x", demoSubnetTerm+demoGroupTerm+groupTerm(`id = "sg-00d035828a5993e59"`)),
			[]string{"security-group-id-not-found", `Security group "sg-00d035828a5993e59" does not exist`}},
		"group Name tag as name": {rdClass("x", demoSubnetTerm+demoGroupTerm+groupTerm(`name = "demo-extra"`)),
			[]string{"security-group-name-not-found", "It is the Name tag of " + awsemu.SecurityGroupDemoNameTagOnly, `tags = { Name = "demo-extra" }`}},
		"groups in two VPCs": {rdClass("x", demoSubnetTerm+groupTerm(`name = "default"`)),
			[]string{"security-groups-subnets-different-vpcs", awsemu.VPCLegacy, "belong to different networks"}},
		"role missing": {strings.Replace(demoClass, "KarpenterNodeRole-demo", "KarpenterNodeRole-prod", 1),
			[]string{"role-not-found", `IAM has no role "KarpenterNodeRole-prod"`, "AwaitingReconciliation"}},
		"instance profile missing": {rdProfileClass("KarpenterNodeInstanceProfile-prod"),
			[]string{"instance-profile-not-found", `IAM has no instance profile "KarpenterNodeInstanceProfile-prod"`}},
		"pool zone without subnet": {demoClass + rdPool("topology.kubernetes.io/zone", `"us-east-1d"`),
			[]string{"nodepool-zones-without-subnet", `The pool admits zones "us-east-1d"`, `"us-east-1a", "us-east-1b", "us-east-1c"`}},
		"pool zone id without subnet": {demoClass + rdPool("topology.k8s.aws/zone-id", `"use1-az6"`),
			[]string{"nodepool-zones-without-subnet", `zone ids "use1-az6"`}},
		"pool excludes every zone of the class": {demoClass + strings.Replace(rdPool("topology.kubernetes.io/zone", `"us-east-1a", "us-east-1b", "us-east-1c"`), `"In"`, `"NotIn"`, 1),
			[]string{"nodepool-zones-without-subnet", "The pool admits zones none of them", `"us-east-1a", "us-east-1b", "us-east-1c"`}},
		"pool zone label without subnet": {demoClass + `
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = karpenter_ec2nodeclass.x.node_class
  labels     = { "topology.kubernetes.io/zone" = "us-east-1d" }
}
`, []string{"nodepool-zones-without-subnet", `The pool admits zones "us-east-1d"`}},
		"pool family offered nowhere": {demoClass + rdPool("karpenter.k8s.aws/instance-family", `"p4d"`),
			[]string{"nodepool-families-not-offered", `Instance family "p4d" is offered in none of the zones`, "No admitted family remains"}},
		"pool instance type offered nowhere": {demoClass + rdPool("node.kubernetes.io/instance-type", `"p4d.24xlarge"`),
			[]string{"nodepool-families-not-offered", `"p4d"`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: prov + c.config, PlanOnly: true, ExpectError: wrapped(c.want...)}},
			})
		})
	}
}

// Readiness warnings are reported once by the plan, with their rule id, and
// acknowledged_warnings silences them.
func TestReadinessWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	demoClass := rdClass("x", demoSubnetTerm+demoGroupTerm)
	cases := map[string]struct {
		config string
		want   []string
	}{
		"term matches nothing": {rdClass("x", demoGroupTerm+demoSubnetTerm+subnetTerm(`tags = { "karpenter.sh/discovery" = "demo-public" }`)),
			[]string{"selector-term-matches-nothing", `{tags: {"karpenter.sh/discovery": "demo-public"}}`, "3 subnets"}},
		"profile without role": {rdProfileClass("KarpenterNodeInstanceProfile-empty"),
			[]string{"instance-profile-without-role", `"KarpenterNodeInstanceProfile-empty" holds no role`}},
		"few free addresses": {rdClass("x", demoGroupTerm+subnetTerm(`tags = { tier = "isolated" }`)),
			[]string{"subnet-free-addresses-low", "Subnet " + awsemu.SubnetDemoExhausted + " has 3 free addresses"}},
		"reservation ended": {rdClass("x", demoSubnetTerm+demoGroupTerm+"  capacity_reservation_selector_terms {\n    id = \""+awsemu.CapacityReservationDemoExpired+"\"\n  }\n"),
			[]string{"capacity-reservation-not-found", awsemu.CapacityReservationDemoExpired, "none is active in this account and region"}},
		"some families offered nowhere": {demoClass + rdPool("karpenter.k8s.aws/instance-family", `"m5", "p4d"`),
			[]string{"nodepool-families-not-offered", `Instance family "p4d"`, "The pool still launches the other families"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			diags := planDiagnostics(t, prov+c.config)
			expectDiagnostic(t, diags, "warning", c.want[0], c.want[1:]...)
			if got := onlyRule(diags, "warning", c.want[0]); len(got) != 1 {
				t.Errorf("want the warning once, got:\n%s", formatDiags(diags))
			}
			for _, d := range diags {
				if d.Severity == "error" {
					t.Errorf("unexpected error %s: %s", d.Summary, d.Detail)
				}
			}
			// Acknowledged on the resource that reports it, it is gone.
			resourceType := "karpenter_ec2nodeclass"
			if strings.HasPrefix(c.want[0], "nodepool-") {
				resourceType = "karpenter_nodepool"
			}
			ack := strings.Replace(c.config, `resource "`+resourceType+`" "x" {`,
				`resource "`+resourceType+`" "x" {`+"\n  acknowledged_warnings = [\""+c.want[0]+"\"]", 1)
			if got := onlyRule(planDiagnostics(t, prov+ack), "warning", c.want[0]); len(got) != 0 {
				t.Errorf("acknowledged warning still reported: %v", got)
			}
		})
	}
}

// The findings point at the attribute Terraform can show a line for: the
// selector term's id or name, the role, the pool's requirement values.
func TestReadinessDiagnosticsPointAtTheValue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	cases := []struct {
		config, rule, marker string
	}{
		{rdClass("x", demoGroupTerm+subnetTerm(`id = "`+awsemu.SubnetDemoPrivateA+`"`)+subnetTerm(`id = "subnet-0f470d0012baca035"`)),
			"subnet-id-not-found", `"subnet-0f470d0012baca035"`},
		{rdClass("x", demoSubnetTerm+demoGroupTerm+groupTerm(`name = "demo-extra"`)), "security-group-name-not-found", `"demo-extra"`},
		{strings.Replace(rdClass("x", demoSubnetTerm+demoGroupTerm), "KarpenterNodeRole-demo", "KarpenterNodeRole-prod", 1), "role-not-found", "KarpenterNodeRole-prod"},
		{rdClass("x", demoSubnetTerm+demoGroupTerm) + rdPool("topology.kubernetes.io/zone", `"us-east-1d"`), "nodepool-zones-without-subnet", `"us-east-1d"`},
		{rdClass("x", demoSubnetTerm+demoGroupTerm) + rdPool("karpenter.k8s.aws/instance-family", `"p4d"`), "nodepool-families-not-offered", `["p4d"]`},
		{rdClass("x", demoSubnetTerm+demoGroupTerm) + `
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = karpenter_ec2nodeclass.x.node_class
  labels     = { "topology.kubernetes.io/zone" = "us-east-1d" }
}
`, "nodepool-zones-without-subnet", `labels     = {`},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			config := prov + c.config
			got := onlyRule(planDiagnostics(t, config), "error", c.rule)
			if len(got) != 1 || got[0].Range == nil {
				t.Fatalf("want one %s with a range, got %+v", c.rule, got)
			}
			if want := lineOf(t, config, c.marker); got[0].Range.Start.Line != want {
				t.Errorf("%s at line %d, want %d (%s)", c.rule, got[0].Range.Start.Line, want, c.marker)
			}
		})
	}
}

// demoSubnets is the class's subnets for the demo selector: subnet id =>
// "<zone> (<zone id>), <n> free".
var demoSubnets = knownvalue.MapExact(map[string]knownvalue.Check{
	awsemu.SubnetDemoPrivateA: knownvalue.StringExact(awsemu.ZoneA + " (" + awsemu.ZoneIDA + "), 8123 free"),
	awsemu.SubnetDemoPrivateC: knownvalue.StringExact(awsemu.ZoneC + " (" + awsemu.ZoneIDC + "), 8051 free"),
	awsemu.SubnetDemoPrivateB: knownvalue.StringExact(awsemu.ZoneB + " (" + awsemu.ZoneIDB + "), 7990 free"),
})

// The resolved subnets, security groups, zones and conditions are known at
// plan while the role and the tags come from a resource created in the same
// run: only InstanceProfileReady waits for the role. The pool's zone check
// runs at that plan too.
func TestAccReadinessKnownAtPlan(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	const class = "karpenter_ec2nodeclass.x"
	cond := func(typ string) tfjsonpath.Path { return tfjsonpath.New("status_conditions").AtMapKey(typ) }
	config := prov + `
resource "terraform_data" "role" { input = "KarpenterNodeRole-demo" }
resource "terraform_data" "team" { input = "platform" }
resource "karpenter_ec2nodeclass" "x" {
  name = "x"
  role = terraform_data.role.output
  tags = { team = terraform_data.team.output }
  ami_selector_terms { alias = "al2023@v20251209" }
` + demoSubnetTerm + demoGroupTerm + `}
` + rdPool("topology.kubernetes.io/zone", `"us-east-1a", "us-east-1b"`)
	groups := knownvalue.MapExact(map[string]knownvalue.Check{
		awsemu.SecurityGroupDemoNode: knownvalue.StringExact("demo-node (" + awsemu.VPCDemo + ")"),
	})
	zones := knownvalue.MapExact(map[string]knownvalue.Check{
		awsemu.ZoneA: knownvalue.StringExact(awsemu.ZoneIDA), awsemu.ZoneB: knownvalue.StringExact(awsemu.ZoneIDB), awsemu.ZoneC: knownvalue.StringExact(awsemu.ZoneIDC),
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(class, tfjsonpath.New("subnets"), demoSubnets),
				plancheck.ExpectKnownValue(class, tfjsonpath.New("security_groups"), groups),
				plancheck.ExpectKnownValue(class, tfjsonpath.New("capacity_reservations"), knownvalue.Null()),
				plancheck.ExpectKnownValue(class, tfjsonpath.New("node_class").AtMapKey("zones"), zones),
				plancheck.ExpectKnownValue(class, cond("AMIsReady"), knownvalue.StringExact("True")),
				plancheck.ExpectKnownValue(class, cond("SubnetsReady"), knownvalue.StringExact("True")),
				plancheck.ExpectKnownValue(class, cond("SecurityGroupsReady"), knownvalue.StringExact("True")),
				plancheck.ExpectUnknownValue(class, cond("InstanceProfileReady")),
				plancheck.ExpectKnownValue(class, cond("CapacityReservationsReady"), knownvalue.StringExact("True")),
				plancheck.ExpectUnknownValue(class, tfjsonpath.New("manifest")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(class, cond("InstanceProfileReady"), knownvalue.StringExact("True")),
				statecheck.ExpectKnownValue(class, tfjsonpath.New("subnets"), demoSubnets),
			},
		}},
	})
}

// capacity_reservations is null without selector terms, so a class that
// uses no reservation does not print `capacity_reservations = {}` in every
// plan; with terms it lists what they select, and an empty map says they
// select nothing. Each step's apply is followed by the test framework's
// no-op plan: null stays null, and no value changes after apply.
func TestAccCapacityReservationsNullWithoutTerms(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	const class = "karpenter_ec2nodeclass.x"
	reservations := tfjsonpath.New("capacity_reservations")
	term := func(tags string) string {
		return demoSubnetTerm + demoGroupTerm + "  capacity_reservation_selector_terms {\n    tags = { " + tags + " }\n  }\n"
	}
	step := func(body string, want knownvalue.Check) resource.TestStep {
		return resource.TestStep{
			Config:            prov + rdClass("x", body),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectKnownValue(class, reservations, want)}},
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(class, reservations, want)},
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(demoSubnetTerm+demoGroupTerm, knownvalue.Null()),
			step(term(`"karpenter.sh/discovery" = "demo"`), knownvalue.MapExact(map[string]knownvalue.Check{
				awsemu.CapacityReservationDemoM5: knownvalue.StringRegexp(regexp.MustCompile(`^m5\.large in us-east-1a, open `)),
			})),
			step(term(`team = "nobody"`), knownvalue.MapExact(map[string]knownvalue.Check{})),
			step(demoSubnetTerm+demoGroupTerm, knownvalue.Null()),
		},
	})
}

// With security group terms from a resource created in the same run, the
// subnets are still known and only the groups (and SecurityGroupsReady)
// wait; with subnet terms unknown every readiness value waits. Both become
// known at apply.
func TestAccReadinessUnknownSelectors(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	const class = "karpenter_ec2nodeclass.x"
	unknownTerm := func(block string) string {
		return "  " + block + " {\n    tags = { \"karpenter.sh/discovery\" = terraform_data.cluster.output }\n  }\n"
	}
	head := prov + "resource \"terraform_data\" \"cluster\" { input = \"demo\" }\n"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: head + rdClass("x", demoSubnetTerm+unknownTerm("security_group_selector_terms")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(class, tfjsonpath.New("subnets"), demoSubnets),
					plancheck.ExpectUnknownValue(class, tfjsonpath.New("security_groups")),
					plancheck.ExpectUnknownValue(class, tfjsonpath.New("status_conditions").AtMapKey("SecurityGroupsReady")),
					plancheck.ExpectKnownValue(class, tfjsonpath.New("status_conditions").AtMapKey("InstanceProfileReady"), knownvalue.StringExact("True")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(class, tfjsonpath.New("security_groups").AtMapKey(awsemu.SecurityGroupDemoNode), knownvalue.StringExact("demo-node ("+awsemu.VPCDemo+")")),
				},
			},
			{
				Config: head + "resource \"terraform_data\" \"replaced\" { input = \"x\" }\n" +
					strings.Replace(rdClass("x", unknownTerm("subnet_selector_terms")+demoGroupTerm), "terraform_data.cluster", "terraform_data.replaced", 1) +
					"# replaced.output is \"x\": no subnet is tagged so; the apply must fail\n",
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(class, tfjsonpath.New("subnets")),
					plancheck.ExpectUnknownValue(class, tfjsonpath.New("status_conditions")),
					plancheck.ExpectUnknownValue(class, tfjsonpath.New("node_class").AtMapKey("zones")),
				}},
				// What is unknown at plan is checked at apply.
				ExpectError: wrapped("subnet-selector-matches-nothing", "tag:karpenter.sh/discovery=x"),
			},
		},
	})
}

// An endpoint that does not serve DescribeSubnets (a fixture set without
// subnets.json) skips the checks with one warning, and the values are
// null; nothing fails.
func TestReadinessSkippedWithoutSubnets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	f.Subnets = nil
	url, _ := awsemutest.StartWith(t, f)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	config := emulatorProviderHCL(url, `cluster { name = "demo" }`) +
		// A group selector that would match nothing is not judged either.
		rdClass("x", demoSubnetTerm+groupTerm(`tags = { "karpenter.sh/discovery" = "prod" }`)) +
		rdPool("topology.kubernetes.io/zone", `"us-east-1d"`)
	diags := planDiagnostics(t, config)
	expectDiagnostic(t, diags, "warning", "readiness-checks-skipped", "UnsupportedOperation", "subnets.json")
	if n := len(onlyRule(diags, "warning", "readiness-checks-skipped")); n != 1 {
		t.Errorf("%d readiness-checks-skipped warnings, want 1:\n%s", n, formatDiags(diags))
	}
	for _, d := range diags {
		if d.Severity == "error" {
			t.Errorf("unexpected error %s: %s", d.Summary, d.Detail)
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("subnets"), knownvalue.Null()),
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("status_conditions"), knownvalue.Null()),
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("node_class").AtMapKey("zones"), knownvalue.Null()),
			}},
		}},
	})
}

// Offline (no region, profile or endpoint: terraform validate, or a plan
// without AWS) the checks are skipped, never failed, and the values null.
func TestReadinessOfflineIsSkipped(t *testing.T) {
	withoutAWS(t)
	pd := providerDataOrDefault(nil)
	c := nodeclass.Class{}
	c.Spec.Role = "KarpenterNodeRole-demo"
	r := startClassReadiness(context.Background(), pd, c)()
	if r.State != checks.Skipped || len(r.Findings) != 0 || r.Failed != nil {
		t.Fatalf("offline readiness: %+v", r)
	}
	v, diags := r.values(true)
	if diags.HasError() || !v.subnets.IsNull() || !v.securityGroups.IsNull() || !v.capacityReservations.IsNull() ||
		!v.conditions.IsNull() || !v.zones.IsNull() {
		t.Errorf("offline values must be null: %+v %v", v, diags)
	}
}

// 60 classes and 60 pools sharing one set of selectors cost one call per
// distinct query in a plan: one DescribeSubnets, one DescribeSecurityGroups,
// one GetRole, one DescribeInstanceTypeOfferings.
func TestReadinessRequestEconomy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov, srv := emulatorWithStats(t, `cluster { name = "demo" }`)
	var b strings.Builder
	b.WriteString(prov)
	for i := range 60 {
		name := fmt.Sprintf("c%d", i)
		b.WriteString(rdClass(name, demoSubnetTerm+demoGroupTerm))
		fmt.Fprintf(&b, `
resource "karpenter_nodepool" "p%[1]d" {
  name       = "p%[1]d"
  node_class = karpenter_ec2nodeclass.c%[1]d.node_class
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m5", "c5"]
  }
}
`, i)
	}
	diags := planDiagnostics(t, b.String())
	for _, d := range diags {
		if d.Severity == "error" {
			t.Fatalf("unexpected error %s: %s", d.Summary, d.Detail)
		}
	}
	st := srv.Stats()
	for _, action := range []string{"ec2:DescribeSubnets", "ec2:DescribeSecurityGroups", "iam:GetRole", "ec2:DescribeInstanceTypeOfferings"} {
		if st[action] != 1 {
			t.Errorf("%s called %d times for 60 classes and 60 pools, want 1 (all: %v)", action, st[action], st)
		}
	}
	if st["ec2:DescribeCapacityReservations"] != 0 || st["iam:GetInstanceProfile"] != 0 {
		t.Errorf("reads nothing asked for: %v", st)
	}
}

// What `make demo` shows of readiness: the quickstart's class with its
// subnets and security groups, and examples/failing's group selected by its
// Name tag, caught at plan.
func TestAccDemoExamplesReadiness(t *testing.T) {
	// The demo's environment: the emulator through AWS_ENDPOINT_URL_*.
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "karpenter-tf")
	quickstart, failing := exampleMainTF(t, "quickstart"), exampleMainTF(t, "failing")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{{
			Config: quickstart, PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectKnownOutputValue("default_security_groups", knownvalue.MapExact(map[string]knownvalue.Check{
					awsemu.SecurityGroupDemoNode: knownvalue.StringExact("demo-node (" + awsemu.VPCDemo + ")"),
				})),
				plancheck.ExpectKnownOutputValue("default_subnets", demoSubnets),
				plancheck.ExpectKnownOutputValue("default_status_conditions", knownvalue.MapExact(map[string]knownvalue.Check{
					"AMIsReady": knownvalue.StringExact("True"), "SubnetsReady": knownvalue.StringExact("True"),
					"SecurityGroupsReady": knownvalue.StringExact("True"), "InstanceProfileReady": knownvalue.StringExact("True"),
					"CapacityReservationsReady": knownvalue.StringExact("True"),
				})),
			}},
		}, {
			Config: failing, PlanOnly: true, ExpectError: wrapped("security-group-name-not-found", `No security group is named "demo-extra"`),
		}},
	})
}

// exampleMainTF is examples/<name>/main.tf.
func exampleMainTF(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../../examples", name, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// inDemoAccount maps the documentation's production cluster onto the
// emulator's: the docs select subnets and security groups tagged
// karpenter.sh/discovery = "prod" and use KarpenterNodeRole-prod, which the
// emulator's account calls "demo". The readiness checks then find them, as
// they would in the reader's account.
func inDemoAccount(src string) string {
	return strings.NewReplacer(
		`"karpenter.sh/discovery" = "prod"`, `"karpenter.sh/discovery" = "demo"`,
		`"KarpenterNodeRole-prod"`, `"KarpenterNodeRole-demo"`,
	).Replace(src)
}

// Free address counts change with every pod a busy cluster starts: while
// the same subnets are selected the plan keeps the recorded counts, so the
// class is not updated on every run; the warning uses the fresh ones.
func TestAccReadinessKeepsRecordedAddressCounts(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	before, _ := awsemutest.Start(t)
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Subnets {
		if aws.ToString(f.Subnets[i].SubnetId) == awsemu.SubnetDemoPrivateA {
			f.Subnets[i].AvailableIpAddressCount = aws.Int32(20) // a zone almost full since the apply
		}
	}
	after, _ := awsemutest.StartWith(t, f)
	class := rdClass("x", demoSubnetTerm+demoGroupTerm)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: emulatorProviderHCL(before, `cluster { name = "demo" }`) + class},
			{
				Config: emulatorProviderHCL(after, `cluster { name = "demo" }`) + class,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("karpenter_ec2nodeclass.x", plancheck.ResourceActionNoop),
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("subnets"), demoSubnets),
				}},
			},
		},
	})
	// The same plan warns with the count of now.
	diags := planDiagnostics(t, emulatorProviderHCL(after, `cluster { name = "demo" }`)+class)
	expectDiagnostic(t, diags, "warning", "subnet-free-addresses-low", awsemu.SubnetDemoPrivateA+" has 20 free addresses")
}
