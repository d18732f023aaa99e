package readiness

import (
	"errors"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
)

// A read AWS denied leaves its condition Unknown (NotPredicted) and skips
// the checks it feeds; the other reads are judged as usual.
func TestEvaluateNotRead(t *testing.T) {
	c := Class{
		SubnetTerms:        []awsclient.SubnetTerm{{Tags: map[string]string{"k": "v"}}},
		SecurityGroupTerms: []awsclient.SecurityGroupTerm{{Tags: map[string]string{"k": "v"}}},
		Role:               "KarpenterNodeRole-prod",
	}
	// What a denied subnet read and a denied role read leave: no subnets,
	// no role answer; the groups were read and match nothing.
	o := Observed{Subnets: subnetSel([]awsclient.Subnet{}), SecurityGroups: groupSel([]awsclient.SecurityGroup{})}
	full := Evaluate(c, o, Options{Now: now})
	if ids := ruleIDs(full.Findings); !contains(ids, "subnet-selector-matches-nothing@subnet_selector_terms/error") {
		t.Fatalf("without NotRead the empty subnets fail: %v", ids)
	}
	r := Evaluate(c, o, Options{Now: now, NotRead: map[string]string{
		ConditionSubnetsReady: "ec2:DescribeSubnets", ConditionInstanceProfileReady: "iam:GetRole",
	}})
	if got := ruleIDs(r.Findings); len(got) != 1 || got[0] != "security-group-selector-matches-nothing@security_group_selector_terms/error" {
		t.Errorf("findings %v, want only the security group one", got)
	}
	want := map[string]Condition{
		ConditionSubnetsReady:        {ConditionSubnetsReady, "Unknown", ReasonNotPredicted, "not predicted: AWS denied ec2:DescribeSubnets to the identity that plans"},
		ConditionSecurityGroupsReady: {ConditionSecurityGroupsReady, "False", ReasonSecurityGroupsNotFound, MessageSecurityGroupsNotFound},
		ConditionInstanceProfileReady: {ConditionInstanceProfileReady, "Unknown", ReasonNotPredicted,
			"not predicted: AWS denied iam:GetRole to the identity that plans"},
	}
	for _, cond := range r.Conditions {
		if w, ok := want[cond.Type]; ok && cond != w {
			t.Errorf("%s = %+v, want %+v", cond.Type, cond, w)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// The readiness reads are the status reads, not those rendering needs; the
// finding's first line names only the action and the condition (a plan
// reports it once for every class), the rest quotes AWS and says what to
// grant.
func TestReadDenied(t *testing.T) {
	for _, a := range []string{"ec2:DescribeSubnets", "ec2:DescribeSecurityGroups", "ec2:DescribeCapacityReservations",
		"iam:GetRole", "iam:GetInstanceProfile", "ec2:DescribeInstanceTypeOfferings"} {
		if !IsRead(a) {
			t.Errorf("%s is a readiness read", a)
		}
	}
	for _, a := range []string{"ec2:DescribeImages", "ssm:GetParameters", "ec2:DescribeInstanceTypes", "eks:DescribeCluster", "sts:AssumeRole"} {
		if IsRead(a) {
			t.Errorf("%s is needed to render, not a readiness read", a)
		}
	}
	one := ReadDenied("iam:GetRole", errors.New("operation error IAM: GetRole, AccessDenied: role KarpenterNodeRole-a"))
	two := ReadDenied("iam:GetRole", errors.New("operation error IAM: GetRole, AccessDenied: role KarpenterNodeRole-b"))
	first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	if first(one.Detail) != first(two.Detail) || one.Detail == two.Detail {
		t.Errorf("the first line must be the same for every class, the rest quote AWS:\n%s\n%s", one.Detail, two.Detail)
	}
	for _, want := range []string{"AWS denied iam:GetRole", "InstanceProfileReady is not predicted", "role-not-found",
		"KarpenterNodeRole-a", "Grant iam:GetRole"} {
		if !strings.Contains(one.Detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, one.Detail)
		}
	}
	// How to keep the gap is the front end's to say (the provider's
	// acknowledged_warnings): the finding only says it may be kept.
	if one.Fix == nil || !one.Fix.Acknowledge || strings.Contains(one.Detail, "acknowledged_warnings") || strings.Contains(one.Detail, "strict_readiness") {
		t.Errorf("fix %+v, detail:\n%s", one.Fix, one.Detail)
	}
	if off := ReadDenied("ec2:DescribeInstanceTypeOfferings", errors.New("x")); !strings.Contains(off.Detail, "nodepool-families-not-offered") ||
		strings.Contains(first(off.Detail), "is not predicted") {
		t.Errorf("offerings: %s", off.Detail)
	}
	if one.Severity.String() != "warning" {
		t.Errorf("severity %s", one.Severity)
	}
}
