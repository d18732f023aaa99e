package readiness

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// The readiness reads are the AWS calls that only predict the class's status
// and the NodePool cross-checks; the manifest and userData do not depend on
// them. A role that plans in CI often has ec2:Describe* but no IAM reads, so
// a denied readiness read skips its checks with one warning instead of
// failing the plan. The reads rendering needs (ec2:DescribeImages,
// ssm:GetParameters, ec2:DescribeInstanceTypes, eks:DescribeCluster) stay
// errors: without them there is nothing to render.

// read is one readiness read: the condition it predicts (empty for a pool
// check) and the rules it feeds.
type read struct {
	condition string
	rules     []*rules.Rule
	also      string // what else is skipped, for the diagnostic
}

var reads = map[string]read{
	"ec2:DescribeSubnets": {ConditionSubnetsReady,
		[]*rules.Rule{ruleSubnetsNotFound, ruleSubnetIDNotFound, ruleTermMatchesNothing, ruleFewAddresses, ruleDifferentVPCs, rulePoolZones, rulePoolFamilies},
		"the class's subnets and zones are not predicted, so the NodePools of the class are not checked against its zones"},
	"ec2:DescribeSecurityGroups": {ConditionSecurityGroupsReady,
		[]*rules.Rule{ruleGroupsNotFound, ruleGroupIDNotFound, ruleGroupNameNotFound, ruleTermMatchesNothing, ruleDifferentVPCs},
		"the class's security groups are not predicted"},
	"ec2:DescribeCapacityReservations": {ConditionCapacityReservationsReady,
		[]*rules.Rule{ruleReservationNotFound, ruleTermMatchesNothing}, "the class's capacity reservations are not predicted"},
	"iam:GetRole":            {ConditionInstanceProfileReady, []*rules.Rule{ruleRoleNotFound}, ""},
	"iam:GetInstanceProfile": {ConditionInstanceProfileReady, []*rules.Rule{ruleProfileNotFound, ruleProfileWithoutRole}, ""},
	"ec2:DescribeInstanceTypeOfferings": {"", []*rules.Rule{rulePoolFamilies},
		"the NodePools' zone check still runs"},
}

// IsRead reports whether action ("iam:GetRole") is a readiness read.
func IsRead(action string) bool {
	_, ok := reads[action]
	return ok
}

// ConditionOf is the condition a readiness read predicts ("" for
// ec2:DescribeInstanceTypeOfferings, which only the NodePool check reads).
func ConditionOf(action string) string { return reads[action].condition }

// ReasonNotPredicted is the reason of a condition whose read AWS denied: its
// status is Unknown, not False, since nothing says Karpenter would fail.
const ReasonNotPredicted = "NotPredicted"

func notPredicted(conditionType, action string) Condition {
	return Condition{Type: conditionType, Status: "Unknown", Reason: ReasonNotPredicted,
		Message: "not predicted: AWS denied " + action + " to the identity that plans"}
}

// RuleReadDenied is reported once per plan for each denied readiness read.
var RuleReadDenied = rules.Register(rules.Rule{
	ID: "readiness-read-denied", Severity: rules.Warning, Category: Category,
	Title: "AWS denied a read the readiness checks need: those checks are skipped",
	Behaviour: "The readiness checks read what Karpenter's controller reads: ec2:DescribeSubnets, ec2:DescribeSecurityGroups, " +
		"ec2:DescribeCapacityReservations, iam:GetRole or iam:GetInstanceProfile, ec2:DescribeInstanceTypeOfferings. When AWS " +
		"answers AccessDenied or UnauthorizedOperation, the checks fed by that read are skipped, the condition it predicts is " +
		"planned with status Unknown and reason NotPredicted (not False: nothing says Karpenter would fail), and the plan goes on " +
		"with everything else. One warning per denied permission and plan, however many classes share it. `strict_readiness = true` " +
		"on the provider makes it an error; `acknowledged_warnings` silences it where the planning role is meant to lack the read.",
	Source: "IAM policy evaluation (AccessDenied, EC2 UnauthorizedOperation); A:pkg/controllers/nodeclass (the reads of the status " +
		"reconcilers); the provider's IAM policy in the index page",
	Bad: "provider \"karpenter\" {\n  region           = \"us-east-1\"\n  strict_readiness = true\n" +
		"  # the planning role has ec2:Describe* but not iam:GetRole\n}\n",
	Good: "provider \"karpenter\" {\n  region = \"us-east-1\"\n  # grant iam:GetRole to the planning role, or acknowledge the gap:\n" +
		"  acknowledged_warnings = [\"readiness-read-denied\"]\n}\n",
})

// ReadDenied is the finding of a denied readiness read. Its first line
// names only the action and the condition, so a plan can report it once for
// all classes; answer is AWS's error, quoted after it.
func ReadDenied(action string, answer error) rules.Finding {
	r := reads[action]
	var b strings.Builder
	b.WriteString("AWS denied " + action + " to the identity that plans")
	if r.condition != "" {
		b.WriteString(": " + r.condition + " is not predicted (planned Unknown, reason " + ReasonNotPredicted + ").")
	} else {
		b.WriteString(": the NodePools' instance families are not checked against the zones' offerings.")
	}
	var ids []string
	for _, rr := range r.rules {
		ids = append(ids, rr.ID)
	}
	b.WriteString("\n\nSkipped for the whole plan: " + strings.Join(ids, ", "))
	if r.also != "" {
		b.WriteString("; " + r.also)
	}
	b.WriteString(". The manifests and userData do not depend on this read and are planned as usual.\n\nAWS answered: ")
	b.WriteString(answer.Error())
	b.WriteString("\n\nGrant " + action + " to the identity that plans (the provider's index page lists the permission each check needs).")
	// Whether the gap may be kept is the front end's to say, in its terms.
	return rules.New(RuleReadDenied, rules.Path{}, "%s", b.String()).WithFix(rules.Fix{Acknowledge: true})
}

// DeniedRead reports the readiness read err says AWS denied: its checks
// are skipped with a warning. A denial that stands for the whole AWS
// configuration (an endpoint, the configuration, rejected credentials) is
// not one read's and fails as it is.
func DeniedRead(err error) (action string, ok bool) {
	action, ok = awsclient.Denied(err)
	if !ok || !IsRead(action) || awsclient.ProviderWide(err) {
		return "", false
	}
	return action, true
}

// The rules the checks of this file emit.
var (
	ruleTermMatchesNothing = rules.Register(rules.Rule{
		ID: "selector-term-matches-nothing", Severity: rules.Warning, Category: Category,
		Title:     "a selector term matches nothing while the others do",
		Behaviour: "Terms are ORed: Karpenter uses what the other terms match and says nothing about this one. It is usually a misspelt tag key or value, or a resource in another account or region; the nodes then miss the subnets, security groups or reservations it was meant to add.",
		Source:    "A:pkg/providers/subnet/subnet.go, A:pkg/providers/securitygroup/securitygroup.go, A:pkg/providers/capacityreservation/provider.go (List)",
		Bad: class(demoSG + subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) +
			subnetTerm(`tags = { "karpenter.sh/discovery" = "demo-public" }`)),
		Good: class(demoNet),
	})
	ruleDifferentVPCs = rules.Register(rules.Rule{
		ID: "security-groups-subnets-different-vpcs", Severity: rules.Error, Category: Category,
		Title:     "security groups and subnets are in different VPCs",
		Behaviour: "Karpenter attaches every selected security group to every node, whichever selected subnet it launches into, and EC2 refuses a network interface whose groups are in another VPC than its subnet: \"Security group sg-… and subnet subnet-… belong to different networks\". The class is Ready and launches keep failing (aws/karpenter-provider-aws#3390).",
		Source:    "A:pkg/providers/launchtemplate (security groups on every launch template), EC2 CreateFleet/RunInstances; aws/karpenter-provider-aws#3390",
		Bad:       class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + groupTerm(`name = "default"`)),
		Good:      class(demoNet),
	})
	rulePoolFamilies = rules.Register(rules.Rule{
		ID: "nodepool-families-not-offered", Severity: rules.Error, Category: Category,
		Title:     "instance families offered in none of the class's zones",
		Behaviour: "Karpenter builds offerings per zone from DescribeInstanceTypeOfferings and keeps the zones of the class's subnets; a family offered in none of them is never launched. An error when no admitted family remains (every launch fails), a warning naming the families otherwise.",
		Source:    "A:pkg/providers/instancetype/offering/offering.go, A:pkg/providers/instancetype/instancetype.go (DescribeInstanceTypeOfferings)",
		Bad:       class(demoNet) + pool(requirement("karpenter.k8s.aws/instance-family", `"p4d"`)),
		Good:      class(demoNet) + pool(requirement("karpenter.k8s.aws/instance-family", `"g5"`)),
	})
)
