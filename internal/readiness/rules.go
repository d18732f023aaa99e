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
	ruleSubnetsNotFound = rules.Register(rules.Rule{
		ID: "subnet-selector-matches-nothing", Severity: rules.Error, Category: Category,
		Title:     "subnet_selector_terms match no subnet",
		Behaviour: "Karpenter sets SubnetsReady to False (reason SubnetsNotFound, \"SubnetSelector did not match any Subnets\"): the EC2NodeClass never becomes Ready and no node launches. The diagnostic lists each term with the DescribeSubnets filters Karpenter sends for it.",
		Source:    "A:pkg/controllers/nodeclass/subnet.go Reconcile, A:pkg/providers/subnet/subnet.go getFilterSets; kubernetes-sigs/karpenter#2992",
		Bad:       class(subnetTerm(`tags = { "karpenter.sh/discovery" = "dem0" }`) + demoSG),
		Good:      class(demoNet),
	})
	ruleGroupsNotFound = rules.Register(rules.Rule{
		ID: "security-group-selector-matches-nothing", Severity: rules.Error, Category: Category,
		Title:     "security_group_selector_terms match no security group",
		Behaviour: "Karpenter sets SecurityGroupsReady to False (reason SecurityGroupsNotFound, \"SecurityGroupSelector did not match any SecurityGroups\"): the EC2NodeClass never becomes Ready and no node launches.",
		Source:    "A:pkg/controllers/nodeclass/securitygroup.go Reconcile, A:pkg/providers/securitygroup/securitygroup.go getFilterSets; kubernetes-sigs/karpenter#2932",
		Bad: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) +
			groupTerm(`tags = { "karpenter.sh/discovery" = "prod" }`)),
		Good: class(demoNet),
	})
	ruleTermMatchesNothing = rules.Register(rules.Rule{
		ID: "selector-term-matches-nothing", Severity: rules.Warning, Category: Category,
		Title:     "a selector term matches nothing while the others do",
		Behaviour: "Terms are ORed: Karpenter uses what the other terms match and says nothing about this one. It is usually a misspelt tag key or value, or a resource in another account or region; the nodes then miss the subnets, security groups or reservations it was meant to add.",
		Source:    "A:pkg/providers/subnet/subnet.go, A:pkg/providers/securitygroup/securitygroup.go, A:pkg/providers/capacityreservation/provider.go (List)",
		Bad: class(demoSG + subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) +
			subnetTerm(`tags = { "karpenter.sh/discovery" = "demo-public" }`)),
		Good: class(demoNet),
	})
	ruleSubnetIDNotFound = rules.Register(rules.Rule{
		ID: "subnet-id-not-found", Severity: rules.Error, Category: Category,
		Title:     "a subnet id term names a subnet that does not exist",
		Behaviour: "Karpenter sends every id term in one DescribeSubnets subnet-id filter, and a filter ignores ids that do not exist: the subnet is silently left out (aws/karpenter-provider-aws#5292), the class launches in the other subnets, or reports SubnetsNotFound when none remain.",
		Source:    "A:pkg/providers/subnet/subnet.go getFilterSets; aws/karpenter-provider-aws#5292",
		Bad: class(demoSG + subnetTerm(`id = "subnet-0c55ce9f379c43337"`) +
			subnetTerm(`id = "subnet-0f470d0012baca035"`)),
		Good: class(demoSG + subnetTerm(`id = "subnet-0c55ce9f379c43337"`) +
			subnetTerm(`id = "subnet-0f470d0012baca034"`)),
	})
	ruleGroupIDNotFound = rules.Register(rules.Rule{
		ID: "security-group-id-not-found", Severity: rules.Error, Category: Category,
		Title:     "a security group id term names a group that does not exist",
		Behaviour: "Karpenter sends every id term in one DescribeSecurityGroups group-id filter, which ignores ids that do not exist: nodes start without that group, silently, or the class reports SecurityGroupsNotFound when no group remains.",
		Source:    "A:pkg/providers/securitygroup/securitygroup.go getFilterSets; aws/karpenter-provider-aws#5292",
		Bad: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`id = "sg-00d035828a5993e59"`)),
		Good: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`id = "sg-00d035828a5993e58"`)),
	})
	ruleGroupNameNotFound = rules.Register(rules.Rule{
		ID: "security-group-name-not-found", Severity: rules.Error, Category: Category,
		Title:     "a security group name term names no group",
		Behaviour: "Karpenter matches `name` against the group name (EC2's GroupName, filter group-name), not the Name tag the console shows: a group created by Terraform without `name` is called \"terraform-2025…\" and its Name tag is ignored. The term silently matches nothing; when a group carries the name as its Name tag, the diagnostic names it.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go SecurityGroupSelectorTerm.Name (\"This value is the name field, which is different from the name tag\"), A:pkg/providers/securitygroup/securitygroup.go getFilterSets",
		Bad: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`name = "demo-extra"`)),
		Good: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`tags = { Name = "demo-extra" }`)),
	})
	ruleDifferentVPCs = rules.Register(rules.Rule{
		ID: "security-groups-subnets-different-vpcs", Severity: rules.Error, Category: Category,
		Title:     "security groups and subnets are in different VPCs",
		Behaviour: "Karpenter attaches every selected security group to every node, whichever selected subnet it launches into, and EC2 refuses a network interface whose groups are in another VPC than its subnet: \"Security group sg-… and subnet subnet-… belong to different networks\". The class is Ready and launches keep failing (aws/karpenter-provider-aws#3390).",
		Source:    "A:pkg/providers/launchtemplate (security groups on every launch template), EC2 CreateFleet/RunInstances; aws/karpenter-provider-aws#3390",
		Bad:       class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + groupTerm(`name = "default"`)),
		Good:      class(demoNet),
	})
	ruleRoleNotFound = rules.Register(rules.Rule{
		ID: "role-not-found", Severity: rules.Error, Category: Category,
		Title:     "the node role does not exist",
		Behaviour: "For `role` Karpenter creates an instance profile and adds the role to it; IAM answers NoSuchEntity, every reconcile fails (\"creating instance profile, ensuring role attached, adding role to instance profile\"), InstanceProfileReady stays Unknown and the class never becomes Ready.",
		Source:    "A:pkg/controllers/nodeclass/instanceprofile.go Reconcile, A:pkg/providers/instanceprofile/instanceprofile.go Create/ensureRole",
		Bad:       classHead + "  role = \"KarpenterNodeRole-prod\"\n" + amiBlock + demoNet + "}",
		Good:      class(demoNet),
	})
	ruleProfileNotFound = rules.Register(rules.Rule{
		ID: "instance-profile-not-found", Severity: rules.Error, Category: Category,
		Title:     "the instance profile does not exist",
		Behaviour: "Karpenter takes `instanceProfile` as it is (InstanceProfileReady is True without asking IAM), so the mistake shows at launch: EC2 rejects the launch template's IamInstanceProfile (\"Value (…) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name\") and no node starts.",
		Source:    "A:pkg/controllers/nodeclass/instanceprofile.go Reconcile (spec.instanceProfile branch), A:pkg/providers/launchtemplate",
		Bad:       profileClass("KarpenterNodeInstanceProfile-prod"),
		Good:      profileClass("KarpenterNodeInstanceProfile-demo"),
	})
	ruleProfileWithoutRole = rules.Register(rules.Rule{
		ID: "instance-profile-without-role", Severity: rules.Warning, Category: Category,
		Title:     "the instance profile holds no role",
		Behaviour: "Nodes launched with an instance profile without a role get no AWS credentials: the kubelet cannot authenticate to the cluster (EKS maps the node role, through an access entry or aws-auth), so the nodes never register and Karpenter replaces them after its registration timeout.",
		Source:    "A:pkg/controllers/nodeclass/instanceprofile.go (spec.instanceProfile is not inspected); EKS node IAM role documentation",
		Bad:       profileClass("KarpenterNodeInstanceProfile-empty"),
		Good:      profileClass("KarpenterNodeInstanceProfile-demo"),
	})
	ruleFewAddresses = rules.Register(rules.Rule{
		ID: "subnet-free-addresses-low", Severity: rules.Warning, Category: Category,
		Title:     "a zone's subnet is almost out of addresses",
		Behaviour: "In each zone Karpenter launches into the selected subnet with the most free addresses. A node takes one address and, with the VPC CNI's default warm pool, a spare ENI's worth more; when the best subnet of a zone has fewer than 32, launches there fail with InsufficientFreeAddressesInSubnet after a node or two.",
		Source:    "A:pkg/providers/subnet/subnet.go ZonalSubnetsForLaunch",
		Bad:       class(demoSG + subnetTerm(`tags = { tier = "isolated" }`)),
		Good:      class(demoNet),
	})
	ruleReservationNotFound = rules.Register(rules.Rule{
		ID: "capacity-reservation-not-found", Severity: rules.Warning, Category: Category,
		Title:     "a capacity reservation term matches no active reservation",
		Behaviour: "Karpenter asks for active reservations only, reads an id that does not exist (InvalidCapacityReservationId.NotFound) as none, and drops reservations past their end date; CapacityReservationsReady stays True and pools with capacity type reserved launch nothing from the reservation.",
		Source:    "A:pkg/providers/capacityreservation/provider.go List, types.go DescribeCapacityReservationsInput",
		Bad:       class(demoNet + "  capacity_reservation_selector_terms {\n    id = \"cr-061cab9905fcac648\"\n  }\n"),
		Good:      class(demoNet + "  capacity_reservation_selector_terms {\n    id = \"cr-0440acf6090c50d15\"\n  }\n"),
	})
	rulePoolZones = rules.Register(rules.Rule{
		ID: "nodepool-zones-without-subnet", Severity: rules.Error, Category: Category,
		Title:     "the pool's zones have no subnet of its class",
		Behaviour: "Karpenter launches only into the zones of the class's subnets; a pool whose zone requirement admits none of them has no offering left, and every NodeClaim of it fails to launch.",
		Source:    "A:pkg/providers/instancetype/offering (zones from the class's subnets), A:pkg/providers/subnet/subnet.go ZonalSubnetsForLaunch",
		Bad:       class(demoNet) + pool(requirement("topology.kubernetes.io/zone", `"us-east-1d"`)),
		Good:      class(demoNet) + pool(requirement("topology.kubernetes.io/zone", `"us-east-1a", "us-east-1b"`)),
	})
	rulePoolFamilies = rules.Register(rules.Rule{
		ID: "nodepool-families-not-offered", Severity: rules.Error, Category: Category,
		Title:     "instance families offered in none of the class's zones",
		Behaviour: "Karpenter builds offerings per zone from DescribeInstanceTypeOfferings and keeps the zones of the class's subnets; a family offered in none of them is never launched. An error when no admitted family remains (every launch fails), a warning naming the families otherwise.",
		Source:    "A:pkg/providers/instancetype/offering/offering.go, A:pkg/providers/instancetype/instancetype.go (DescribeInstanceTypeOfferings)",
		Bad:       class(demoNet) + pool(requirement("karpenter.k8s.aws/instance-family", `"p4d"`)),
		Good:      class(demoNet) + pool(requirement("karpenter.k8s.aws/instance-family", `"g5"`)),
	})
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
