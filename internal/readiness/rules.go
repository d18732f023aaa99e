package readiness

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"

// Category groups the readiness rules in the rules guide.
const Category = "EC2NodeClass readiness"

// The examples are planned against the project's emulator fixtures by
// TestRuleExamples: cluster "demo"'s subnets and security groups carry
// karpenter.sh/discovery = "demo".
const (
	classHead = "resource \"karpenter_ec2nodeclass\" \"default\" {\n  name = \"default\"\n"
	amiBlock  = "  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n"
	roleLine  = "  role = \"KarpenterNodeRole-demo\"\n"
	demoSG    = "  security_group_selector_terms {\n    tags = { \"karpenter.sh/discovery\" = \"demo\" }\n  }\n"
	demoNet   = "  subnet_selector_terms {\n    tags = { \"karpenter.sh/discovery\" = \"demo\" }\n  }\n" + demoSG
)

func class(body string) string { return classHead + roleLine + amiBlock + body + "}" }

// profileClass is the class with instance_profile instead of role (aligned
// as terraform fmt aligns it).
func profileClass(profile string) string {
	return "resource \"karpenter_ec2nodeclass\" \"default\" {\n  name             = \"default\"\n" +
		"  instance_profile = \"" + profile + "\"\n" + amiBlock + demoNet + "}"
}

func subnetTerm(attr string) string { return "  subnet_selector_terms {\n    " + attr + "\n  }\n" }

func groupTerm(attr string) string {
	return "  security_group_selector_terms {\n    " + attr + "\n  }\n"
}

func pool(requirements string) string {
	return "\n\nresource \"karpenter_nodepool\" \"default\" {\n  name       = \"default\"\n" +
		"  node_class = karpenter_ec2nodeclass.default.node_class\n" + requirements + "}"
}

func requirement(key, values string) string {
	return "  requirements {\n    key      = \"" + key + "\"\n    operator = \"In\"\n    values   = [" + values + "]\n  }\n"
}

var (
	// RuleChecksSkipped is the one warning of a plan whose EC2 endpoint does
	// not serve DescribeSubnets (an emulator fixture set made before these
	// checks existed): the checks are skipped, not failed.
	RuleChecksSkipped = rules.Register(rules.Rule{
		ID: "readiness-checks-skipped", Severity: rules.Warning, Category: Category,
		Title:     "the EC2 endpoint does not serve DescribeSubnets: readiness checks skipped",
		Behaviour: "The subnet, security group, instance profile and capacity reservation checks ask EC2 and IAM what Karpenter asks. An endpoint that answers ec2:DescribeSubnets with UnsupportedOperation (the project's emulator serving a fixture set without subnets.json, or another emulator without the operation) cannot say which subnets exist, so the checks are skipped and `subnets`, `security_groups`, `capacity_reservations`, `status_conditions` and `node_class.zones` stay null.",
		Source:    "A:pkg/providers/subnet/subnet.go List (DescribeSubnets), EC2 API error UnsupportedOperation",
		Bad:       "provider \"karpenter\" {\n  region = \"us-east-1\"\n  endpoints {\n    ec2 = \"http://127.0.0.1:4566\" # serves no DescribeSubnets\n  }\n}\n",
		Good:      "provider \"karpenter\" {\n  region = \"us-east-1\"\n  endpoints {\n    ec2 = \"http://127.0.0.1:4566\" # with subnets.json in its fixtures\n    iam = \"http://127.0.0.1:4566\"\n  }\n}\n",
	})
)

// ChecksSkipped is the finding of an endpoint that does not serve
// DescribeSubnets; err is the answer, quoted.
func ChecksSkipped(err error) rules.Finding {
	return rules.New(RuleChecksSkipped, rules.Path{},
		"%v. Subnets, security groups, the instance profile and capacity reservations were not checked, and this "+
			"class's subnets, security_groups, capacity_reservations, status_conditions and node_class.zones are null. "+
			"Serve DescribeSubnets (for the project's emulator: a subnets.json in the fixture directory) to run the checks.", err)
}
