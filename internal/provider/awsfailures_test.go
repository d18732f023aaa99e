package provider

import (
	"cmp"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

// deniedEmulator starts the emulator denying actions and returns the
// provider block for it (extra inside the block), with static keys in the
// environment.
func deniedEmulator(t *testing.T, extra string, deny ...string) (string, *awsemu.Server) {
	t.Helper()
	url, srv := awsemutest.Start(t, awsemu.Options{Deny: deny})
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return emulatorProviderHCL(url, extra), srv
}

// fleet is n classes of the demo cluster, each with a pool naming families
// (so the pools read the zones' offerings too).
func fleet(n int) string {
	var b strings.Builder
	for i := range n {
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
	return b.String()
}

func errorsOf(diags []planDiagnostic) []planDiagnostic {
	var out []planDiagnostic
	for _, d := range diags {
		if d.Severity == "error" {
			out = append(out, d)
		}
	}
	return out
}

// A planning role without iam:GetRole: the plan of three classes and their
// pools succeeds with exactly one warning naming the check skipped and the
// permission; InstanceProfileReady is planned Unknown, the other conditions
// and the manifests as usual. strict_readiness makes it one error.
func TestAccReadinessReadDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov, srv := deniedEmulator(t, `cluster { name = "demo" }`, "iam:GetRole")
	config := prov + fleet(3)
	diags := planDiagnostics(t, config)
	got := onlyRule(diags, "warning", "readiness-read-denied")
	if len(got) != 1 {
		t.Fatalf("%d readiness-read-denied warnings, want 1:\n%s", len(got), formatDiags(diags))
	}
	// About the plan, not about the class that happened to report it.
	if want := "readiness-read-denied: " + readiness.RuleReadDenied.Title; got[0].Summary != want {
		t.Errorf("summary %q, want %q", got[0].Summary, want)
	}
	for _, want := range []string{"AWS denied iam:GetRole", "InstanceProfileReady is not predicted", "role-not-found",
		"not authorized to perform: iam:GetRole", "Grant iam:GetRole", "strict_readiness"} {
		if !strings.Contains(got[0].Detail, want) {
			t.Errorf("the warning lacks %q:\n%s", want, got[0].Detail)
		}
	}
	if errs := errorsOf(diags); len(errs) > 0 {
		t.Errorf("errors:\n%s", formatDiags(errs))
	}
	if n := srv.Stats()["iam:GetRole"]; n != 1 {
		t.Errorf("%d iam:GetRole requests for three classes, want 1 (one per distinct query, a denial is not retried)", n)
	}

	const class = "karpenter_ec2nodeclass.c1"
	cond := func(typ string) tfjsonpath.Path { return tfjsonpath.New("status_conditions").AtMapKey(typ) }
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			// Exit 0: the plan (and the apply) succeed.
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(class, cond("SubnetsReady"), knownvalue.StringExact("True")),
				plancheck.ExpectKnownValue(class, cond("InstanceProfileReady"), knownvalue.StringExact("Unknown: "+readiness.ReasonNotPredicted)),
				plancheck.ExpectKnownValue(class, tfjsonpath.New("subnets"), demoSubnets),
				plancheck.ExpectKnownValue(class, tfjsonpath.New("manifest"), knownvalue.NotNull()),
			}},
		}},
	})

	strict, _ := deniedEmulator(t, `cluster { name = "demo" }
  strict_readiness = true`, "iam:GetRole")
	diags = planDiagnostics(t, strict+fleet(3))
	if errs := errorsOf(diags); len(errs) != 1 || !strings.HasPrefix(errs[0].Summary, "readiness-read-denied:") ||
		!strings.Contains(errs[0].Detail, "iam:GetRole") {
		t.Errorf("strict_readiness: want one readiness-read-denied error, got:\n%s", formatDiags(diags))
	}
}

// Each readiness read, denied alone, skips its own checks only: its values
// are null and its condition Unknown, the rest is predicted, and no error
// is raised even where the denied read would have found one.
func TestReadinessReadsDeniedOneByOne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	for _, tc := range []struct {
		action, config, skipped string
	}{
		// The subnet term matches nothing and the pool's zone has no
		// subnet: neither is judged without DescribeSubnets.
		{"ec2:DescribeSubnets", rdClass("x", subnetTerm(`tags = { "karpenter.sh/discovery" = "dem0" }`)+demoGroupTerm) +
			rdPool("topology.kubernetes.io/zone", `"us-east-1d"`), "subnet-selector-matches-nothing"},
		{"ec2:DescribeSecurityGroups", rdClass("x", demoSubnetTerm+groupTerm(`tags = { "karpenter.sh/discovery" = "prod" }`)),
			"security-group-selector-matches-nothing"},
		{"ec2:DescribeCapacityReservations", rdClass("x", demoSubnetTerm+demoGroupTerm+
			"  capacity_reservation_selector_terms {\n    id = \""+awsemu.CapacityReservationDemoExpired+"\"\n  }\n"), "capacity-reservation-not-found"},
		{"iam:GetInstanceProfile", rdProfileClass("KarpenterNodeInstanceProfile-prod"), "instance-profile-not-found"},
		{"ec2:DescribeInstanceTypeOfferings", rdClass("x", demoSubnetTerm+demoGroupTerm) +
			rdPool("karpenter.k8s.aws/instance-family", `"p4d"`), "nodepool-families-not-offered"},
	} {
		t.Run(tc.action, func(t *testing.T) {
			prov, _ := deniedEmulator(t, `cluster { name = "demo" }`, tc.action)
			diags := planDiagnostics(t, prov+tc.config)
			expectDiagnostic(t, diags, "warning", "readiness-read-denied", "AWS denied "+tc.action, tc.skipped)
			if n := len(onlyRule(diags, "warning", "readiness-read-denied")); n != 1 {
				t.Errorf("%d warnings, want 1:\n%s", n, formatDiags(diags))
			}
			if errs := errorsOf(diags); len(errs) > 0 {
				t.Errorf("errors:\n%s", formatDiags(errs))
			}
			// The same configuration without the denial reports the check
			// that was skipped.
			open, _ := deniedEmulator(t, `cluster { name = "demo" }`)
			all := planDiagnostics(t, open+tc.config)
			if len(onlyRule(all, "error", tc.skipped))+len(onlyRule(all, "warning", tc.skipped)) == 0 {
				t.Errorf("without the denial the plan does not report %s:\n%s", tc.skipped, formatDiags(all))
			}
			if tc.action != "ec2:DescribeSubnets" {
				return
			}
			const class = "karpenter_ec2nodeclass.x"
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: prov + tc.config, PlanOnly: true, ExpectNonEmptyPlan: true,
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(class, tfjsonpath.New("subnets"), knownvalue.Null()),
						plancheck.ExpectKnownValue(class, tfjsonpath.New("node_class").AtMapKey("zones"), knownvalue.Null()),
						plancheck.ExpectKnownValue(class, tfjsonpath.New("status_conditions").AtMapKey("SubnetsReady"),
							knownvalue.StringExact("Unknown: "+readiness.ReasonNotPredicted)),
						plancheck.ExpectKnownValue(class, tfjsonpath.New("status_conditions").AtMapKey("SecurityGroupsReady"), knownvalue.StringExact("True")),
					}},
				}},
			})
		})
	}
}

// A read rendering needs stays an error, naming the permission, once for
// the plan however many classes ran into it.
func TestRenderingReadDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov, _ := deniedEmulator(t, `cluster { name = "demo" }`, "ec2:DescribeImages")
	diags := planDiagnostics(t, prov+fleet(3))
	errs := errorsOf(diags)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Summary, "aws-permission-denied:") {
		t.Fatalf("want one aws-permission-denied error, got:\n%s", formatDiags(diags))
	}
	for _, want := range []string{"AWS denied ec2:DescribeImages", "UnauthorizedOperation", "Grant ec2:DescribeImages"} {
		if !strings.Contains(errs[0].Detail, want) {
			t.Errorf("the error lacks %q:\n%s", want, errs[0].Detail)
		}
	}
}

// A role that cannot be assumed is one error at the provider block (the
// diagnostic's range is the provider block's first line), whatever number
// of resources the plan has, and says nothing about kubernetes_version.
func TestAssumeRoleDeniedIsOneErrorAtTheProviderBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov, srv := deniedEmulator(t, `cluster { name = "demo" }
  assume_role {
    role_arn = "arn:aws:iam::`+awsemu.AccountID+`:role/KarpenterNodeRole-demo"
  }`, "sts:AssumeRole")
	config := prov + fleet(2) + `
data "karpenter_amis" "x" {
  ami_selector_terms { alias = "al2023@latest" }
}
`
	diags := planDiagnostics(t, config)
	errs := errorsOf(diags)
	if len(errs) != 1 {
		t.Fatalf("%d errors, want 1:\n%s", len(errs), formatDiags(diags))
	}
	e := errs[0]
	if !strings.HasPrefix(e.Summary, "aws-config-failed:") {
		t.Errorf("summary %q", e.Summary)
	}
	for _, want := range []string{"assume_role could not be used: AWS denied sts:AssumeRole", "not authorized to perform: sts:AssumeRole",
		"trust policy"} {
		if !strings.Contains(e.Detail, want) {
			t.Errorf("the error lacks %q:\n%s", want, e.Detail)
		}
	}
	if strings.Contains(e.Detail, "kubernetes_version") {
		t.Errorf("the error mentions kubernetes_version:\n%s", e.Detail)
	}
	if want := lineOf(t, config, `provider "karpenter" {`); e.Range == nil || e.Range.Start.Line != want ||
		e.Address != `provider["registry.terraform.io/karpenter-tf/karpenter"]` {
		t.Errorf("the error is at %+v (address %q), want the provider block at line %d", e.Range, e.Address, want)
	}
	if st := srv.Stats(); st["sts:AssumeRole"] != 1 || st["total"] != st["sts:AssumeRole"] {
		t.Errorf("requests %v, want one AssumeRole and nothing else", st)
	}
}

// silentEndpoint is a loopback listener that accepts connections and never
// answers (never a remote address: the test must not depend on a network).
func silentEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					_ = c.Close() // the test is over
				}
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close() // ends the accept loop
		<-done
	})
	return "http://" + ln.Addr().String()
}

// An endpoint that accepts and never answers fails the plan in well under
// 20 s with one error naming the service and the endpoint, although every
// class and pool needs it and max_retries is the default.
func TestUnreachableEndpointFailsFastOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	url := silentEndpoint(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	config := strings.Replace(emulatorProviderHCL(url, `cluster {
    name               = "demo"
    kubernetes_version = "1.32"
  }`), "max_retries = 0", "", 1) + fleet(3)
	start := time.Now()
	diags := planDiagnostics(t, config)
	took := time.Since(start)
	if took > 20*time.Second {
		t.Errorf("the plan took %s to fail", took)
	}
	errs := errorsOf(diags)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Summary, "aws-endpoint-unreachable:") {
		t.Fatalf("want one aws-endpoint-unreachable error, got:\n%s", formatDiags(diags))
	}
	for _, want := range []string{url, "did not answer within 10s", "endpoints"} {
		if !strings.Contains(errs[0].Detail, want) {
			t.Errorf("the error lacks %q:\n%s", want, errs[0].Detail)
		}
	}
	// Every service points at the same silent endpoint, so whichever read
	// times out first names it: EC2 or SSM usually, IAM (a class's role)
	// when the machine is loaded.
	if !regexp.MustCompile(`The (EC2|SSM|IAM|EKS|STS) endpoint`).MatchString(errs[0].Detail) {
		t.Errorf("the error does not name the service:\n%s", errs[0].Detail)
	}
	t.Logf("failed after %s", took.Round(time.Millisecond))
}

// The Bad and Good examples of the rules about AWS saying no, planned as
// written against the emulator (AWS_ENDPOINT_URL points every service at
// it; an example's own endpoints block wins) with one class and pool of the
// demo cluster: each Bad example triggers its rule, each Good one does not.
func TestAWSFailureRuleExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	if n := rulestest.CheckExamples(t, categoryProvider); n < 17 {
		t.Errorf("%d provider rules checked", n)
	}
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return "http://" + ln.Addr().String() // nothing listens there once closed
	}()
	for _, tc := range []struct {
		rule      *rules.Rule
		deny      []string
		badURL    string // replaces the examples' http://127.0.0.1:4566 in Bad
		wantError bool   // the Bad example fails the plan
	}{
		{readiness.RuleReadDenied, []string{"iam:GetRole"}, "", true},
		{ruleAWSConfig, nil, "", true},
		{ruleAWSDenied, []string{"eks:DescribeCluster"}, "", true},
		{ruleAWSUnreachable, nil, refused, true},
	} {
		t.Run(tc.rule.ID, func(t *testing.T) {
			url, _ := awsemutest.Start(t, awsemu.Options{Deny: tc.deny})
			t.Setenv("AWS_ENDPOINT_URL", url)
			t.Setenv("AWS_ACCESS_KEY_ID", "test")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			plan := func(example, emulatorURL string) []planDiagnostic {
				src := strings.ReplaceAll(example, "http://127.0.0.1:4566", emulatorURL)
				if !strings.Contains(src, "cluster {") {
					// The demo class's alias needs the cluster's version.
					src = src[:strings.LastIndex(src, "}")] + "  cluster {\n    name = \"demo\"\n  }\n}\n"
				}
				return planDiagnostics(t, src+fleet(1))
			}
			bad := plan(tc.rule.Bad, cmp.Or(tc.badURL, url))
			sev := "warning"
			if tc.wantError {
				sev = "error"
			}
			if len(onlyRule(bad, sev, tc.rule.ID)) != 1 {
				t.Errorf("the Bad example does not report one %s %s:\n%s\n%s", sev, tc.rule.ID, tc.rule.Bad, formatDiags(bad))
			}
			good := plan(tc.rule.Good, url)
			if len(onlyRule(good, "error", tc.rule.ID))+len(onlyRule(good, "warning", tc.rule.ID)) > 0 || len(errorsOf(good)) > 0 {
				t.Errorf("the Good example reports:\n%s\n%s", tc.rule.Good, formatDiags(good))
			}
		})
	}
}

// A read that fails for a reason of its own (here: throttled past
// max_retries) stays aws-request-failed, with the advice for that reason.
func TestThrottledReadIsARequestFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	url, _ := awsemutest.Start(t, awsemu.Options{ThrottleRate: 1})
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	diags := planDiagnostics(t, emulatorProviderHCL(url, `cluster {
    name               = "demo"
    kubernetes_version = "1.32"
  }`)+fleet(1))
	expectDiagnostic(t, diags, "error", "aws-request-failed", "AWS kept throttling the request", "max_retries")
}

// Every service's throttling code gets the throttling advice (IAM and STS
// answer "Throttling", EC2 "RequestLimitExceeded", SSM and EKS
// "ThrottlingException").
func TestThrottlingAdvice(t *testing.T) {
	for _, code := range []string{"Throttling", "RequestLimitExceeded", "ThrottlingException"} {
		err := &smithy.OperationError{ServiceID: "IAM", OperationName: "GetRole", Err: &smithy.GenericAPIError{Code: code, Message: "Rate exceeded"}}
		if d := awsErrorDetail(err); !strings.Contains(d, "AWS kept throttling the request") {
			t.Errorf("%s: %s", code, d)
		}
	}
}

// Each configuration AWS cannot be used with is one error at the provider
// block, naming the setting, before any resource asks AWS anything.
func TestProviderConfigFailuresAtTheProviderBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	url, srv := awsemutest.Start(t)
	empty := t.TempDir() + "/none"
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", empty)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", empty)
	for _, k := range []string{"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2"} {
		t.Setenv(k, "")
	}
	for _, tc := range []struct {
		name, extra string
		keys        bool
		want        []string
	}{
		{"unknown profile", `profile = "nope"`, true, []string{"The provider's profile could not be used", "nope"}},
		{"no credentials", ``, false, []string{"No usable AWS credentials were found", "AWS_PROFILE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.keys {
				t.Setenv("AWS_ACCESS_KEY_ID", "test")
				t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
			} else {
				t.Setenv("AWS_ACCESS_KEY_ID", "")
				t.Setenv("AWS_SECRET_ACCESS_KEY", "")
			}
			config := emulatorProviderHCL(url, tc.extra+"\n  cluster { name = \"demo\" }") + fleet(2)
			diags := planDiagnostics(t, config)
			errs := errorsOf(diags)
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Summary, "aws-config-failed:") {
				t.Fatalf("want one aws-config-failed error, got:\n%s", formatDiags(diags))
			}
			for _, want := range tc.want {
				if !strings.Contains(errs[0].Detail, want) {
					t.Errorf("the error lacks %q:\n%s", want, errs[0].Detail)
				}
			}
			if want := lineOf(t, config, `provider "karpenter" {`); errs[0].Range == nil || errs[0].Range.Start.Line != want {
				t.Errorf("the error is at %+v, want the provider block at line %d", errs[0].Range, want)
			}
		})
	}
	t.Run("no region", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "test")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
		config := strings.Replace(emulatorProviderHCL(url, `cluster { name = "demo" }`), `region      = "us-east-1"`, "", 1) + fleet(1)
		errs := errorsOf(planDiagnostics(t, config))
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Summary, "aws-config-failed:") || !strings.Contains(errs[0].Detail, "No AWS region is configured") {
			t.Fatalf("want one aws-config-failed error about the region, got:\n%s", formatDiags(errs))
		}
	})
	if n := srv.Stats()["total"]; n != 0 {
		t.Errorf("%d AWS requests, want none: the configuration fails first", n)
	}
}

// addAWSFailure picks the rule by what AWS said; provider-wide failures go
// to the whole resource without the caller's hint, which is about the
// resource (e.g. kubernetes_version), not about credentials or endpoints.
func TestAddAWSFailureRules(t *testing.T) {
	op := func(service, name string, err error) error {
		return fmt.Errorf("read: %w", &smithy.OperationError{ServiceID: service, OperationName: name, Err: err})
	}
	api := func(code string) error { return &smithy.GenericAPIError{Code: code, Message: "m"} }
	const hint = "set kubernetes_version"
	for _, tc := range []struct {
		err      error
		rule     string
		attr     bool // reported at the attribute, with the hint
		contains string
	}{
		{&awsclient.EndpointError{Endpoint: "http://127.0.0.1:9", Service: "EC2", Operation: "DescribeImages", Reason: "did not answer within 10s", Cause: "c"},
			"aws-endpoint-unreachable", false, "The EC2 endpoint http://127.0.0.1:9 did not answer within 10s (ec2:DescribeImages)"},
		{&awsclient.ConfigError{Setting: "assume_role", Err: op("STS", "AssumeRole", api("AccessDenied"))},
			"aws-config-failed", false, "AWS denied sts:AssumeRole"},
		{op("EC2", "DescribeImages", api("AuthFailure")), "aws-config-failed", false, "AWS rejected the provider's credentials (AuthFailure)"},
		{op("EKS", "DescribeCluster", api("AccessDeniedException")), "aws-permission-denied", true, "AWS denied eks:DescribeCluster"},
		{op("SSM", "GetParameters", api("InternalServerError")), "aws-request-failed", true, "InternalServerError"},
	} {
		var diags diag.Diagnostics
		addAWSFailure(&diags, path.Root("ami_selector_terms"), tc.err, hint)
		if len(diags) != 1 {
			t.Fatalf("%v: %d diagnostics", tc.err, len(diags))
		}
		d := diags[0]
		_, hasPath := d.(diag.DiagnosticWithPath)
		if !strings.HasPrefix(d.Summary(), tc.rule+":") || hasPath != tc.attr || strings.Contains(d.Detail(), hint) != tc.attr ||
			!strings.Contains(d.Detail(), tc.contains) {
			t.Errorf("%v: %s at path %v:\n%s", tc.err, d.Summary(), hasPath, d.Detail())
		}
	}
}

// The copies of a once-per-plan diagnostic are dropped (a data source keeps
// its errors), other diagnostics are never touched.
func TestOncePerPlan(t *testing.T) {
	pd := &ProviderData{reported: &reportedOnce{}}
	unreachable := func(resource string) diag.Diagnostics {
		var d diag.Diagnostics
		addRuleDiag(&d, path.Empty(), ruleAWSUnreachable, "The EC2 endpoint http://x did not answer.\n\nasked by "+resource)
		addRuleDiag(&d, path.Root("name"), ruleAWSRequestFailed, "throttled "+resource)
		return d
	}
	if got := pd.oncePerPlan(unreachable("a"), false); len(got) != 2 {
		t.Errorf("first resource: %v", got)
	}
	if got := pd.oncePerPlan(unreachable("b"), false); len(got) != 1 || !strings.HasPrefix(got[0].Summary(), "aws-request-failed") {
		t.Errorf("second resource keeps only its own failure: %v", got)
	}
	if got := pd.oncePerPlan(unreachable("c"), true); len(got) != 2 {
		t.Errorf("a data source keeps its errors: %v", got)
	}
	var unconfigured *ProviderData
	if got := unconfigured.oncePerPlan(unreachable("d"), false); len(got) != 2 {
		t.Errorf("unconfigured: %v", got)
	}
}
