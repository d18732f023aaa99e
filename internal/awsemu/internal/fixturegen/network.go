package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// The network of cluster "demo": its VPC (the cluster's own VpcId) with a
// private subnet in each of three zones, and the traps readiness checks are
// tested on. A second VPC ("legacy") shares a role tag and a group name with
// it. README.md lists what each trap is for.

// zoneIDs maps the region's zones to zone ids (account-specific in AWS;
// these are plausible for us-east-1).
var zoneIDs = map[string]string{
	"us-east-1a": "use1-az1", "us-east-1b": "use1-az2", "us-east-1c": "use1-az4", "us-east-1d": "use1-az6",
}

var (
	vpcDemo   = "vpc-0" + hexOf("vpc", "demo", 16)
	vpcLegacy = "vpc-0" + hexOf("vpc", "legacy", 16)
)

type subnetSpec struct {
	ident, doc string
	id         string // derived from name when empty
	name, vpc  string
	zone, cidr string
	available  int32
	public     bool
	tags       map[string]string
}

const discoveryKey = "karpenter.sh/discovery"

var subnetSpecs = []subnetSpec{
	{ident: "SubnetDemoPrivateA", doc: "private subnet of cluster demo in us-east-1a, tagged karpenter.sh/discovery=demo",
		id: "subnet-0" + hexOf("subnet-a", "demo", 16), name: "demo-private-us-east-1a", vpc: vpcDemo, zone: "us-east-1a",
		cidr: "10.0.0.0/19", available: 8123, tags: map[string]string{discoveryKey: "demo", "kubernetes.io/role/internal-elb": "1"}},
	{ident: "SubnetDemoPrivateB", doc: "private subnet of cluster demo in us-east-1b, tagged karpenter.sh/discovery=demo",
		id: "subnet-0" + hexOf("subnet-b", "demo", 16), name: "demo-private-us-east-1b", vpc: vpcDemo, zone: "us-east-1b",
		cidr: "10.0.32.0/19", available: 7990, tags: map[string]string{discoveryKey: "demo", "kubernetes.io/role/internal-elb": "1"}},
	{ident: "SubnetDemoPrivateC", doc: "private subnet of cluster demo in us-east-1c, tagged karpenter.sh/discovery=demo",
		name: "demo-private-us-east-1c", vpc: vpcDemo, zone: "us-east-1c",
		cidr: "10.0.64.0/19", available: 8051, tags: map[string]string{discoveryKey: "demo", "kubernetes.io/role/internal-elb": "1"}},
	{ident: "SubnetDemoPublicTypo", doc: "public subnet of the demo VPC in us-east-1a whose discovery tag key is misspelt (karpenter.sh/discovry=demo): a discovery selector misses it",
		name: "demo-public-us-east-1a", vpc: vpcDemo, zone: "us-east-1a", cidr: "10.0.96.0/22", available: 1011, public: true,
		tags: map[string]string{"karpenter.sh/discovry": "demo", "kubernetes.io/role/elb": "1"}},
	{ident: "SubnetDemoExhausted", doc: "isolated subnet of the demo VPC in us-east-1c with 3 free addresses, tagged tier=isolated",
		name: "demo-isolated-us-east-1c", vpc: vpcDemo, zone: "us-east-1c", cidr: "10.0.100.0/28", available: 3,
		tags: map[string]string{"tier": "isolated"}},
	{ident: "SubnetLegacyA", doc: "private subnet of the legacy VPC in us-east-1a; shares the kubernetes.io/role/internal-elb=1 tag with the demo subnets",
		name: "legacy-private-us-east-1a", vpc: vpcLegacy, zone: "us-east-1a", cidr: "172.31.0.0/20", available: 4000,
		tags: map[string]string{discoveryKey: "legacy", "kubernetes.io/role/internal-elb": "1"}},
	{ident: "SubnetLegacyD", doc: "private subnet of the legacy VPC in us-east-1d, a zone the demo VPC does not use",
		name: "legacy-private-us-east-1d", vpc: vpcLegacy, zone: "us-east-1d", cidr: "172.31.16.0/20", available: 4080,
		tags: map[string]string{discoveryKey: "legacy", "kubernetes.io/role/internal-elb": "1"}},
}

func (s subnetSpec) subnetID() string {
	if s.id != "" {
		return s.id
	}
	return "subnet-0" + hexOf("subnet", s.name, 16)
}

func subnets() []ec2types.Subnet {
	out := make([]ec2types.Subnet, 0, len(subnetSpecs))
	for _, s := range subnetSpecs {
		id := s.subnetID()
		out = append(out, ec2types.Subnet{
			AssignIpv6AddressOnCreation: ptr(false),
			AvailabilityZone:            ptr(s.zone),
			AvailabilityZoneId:          ptr(zoneIDs[s.zone]),
			AvailableIpAddressCount:     ptr(s.available),
			BlockPublicAccessStates:     &ec2types.BlockPublicAccessStates{InternetGatewayBlockMode: ec2types.BlockPublicAccessModeOff},
			CidrBlock:                   ptr(s.cidr),
			DefaultForAz:                ptr(false),
			EnableDns64:                 ptr(false),
			Ipv6CidrBlockAssociationSet: []ec2types.SubnetIpv6CidrBlockAssociation{},
			Ipv6Native:                  ptr(false),
			MapCustomerOwnedIpOnLaunch:  ptr(false),
			MapPublicIpOnLaunch:         ptr(s.public),
			OwnerId:                     ptr(accountID),
			PrivateDnsNameOptionsOnLaunch: &ec2types.PrivateDnsNameOptionsOnLaunch{
				EnableResourceNameDnsAAAARecord: ptr(false),
				EnableResourceNameDnsARecord:    ptr(false),
				HostnameType:                    ec2types.HostnameTypeIpName,
			},
			State:     ec2types.SubnetStateAvailable,
			SubnetArn: ptr("arn:aws:ec2:" + region + ":" + accountID + ":subnet/" + id),
			SubnetId:  ptr(id),
			Tags:      ec2Tags(s.tags, s.name),
			VpcId:     ptr(s.vpc),
		})
	}
	return out
}

type securityGroupSpec struct {
	ident, doc string
	id         string // derived from groupName+vpc when empty
	groupName  string
	nameTag    string // "" for none
	vpc, desc  string
	tags       map[string]string
}

var securityGroupSpecs = []securityGroupSpec{
	{ident: "SecurityGroupDemoNode", doc: "node security group of cluster demo, tagged karpenter.sh/discovery=demo",
		groupName: "demo-node", nameTag: "demo-node", vpc: vpcDemo, desc: "EKS node shared security group",
		tags: map[string]string{discoveryKey: "demo"}},
	{ident: "SecurityGroupDemoCluster", doc: "the cluster security group EKS made for demo (the cluster's ClusterSecurityGroupId)",
		id: "sg-0" + hexOf("sg", "demo", 16), groupName: "eks-cluster-sg-demo-1823524711", nameTag: "eks-cluster-sg-demo-1823524711", vpc: vpcDemo,
		desc: "EKS created security group applied to ENI that is attached to EKS Control Plane master nodes, as well as any managed workloads.",
		tags: map[string]string{"aws:eks:cluster-name": "demo", "kubernetes.io/cluster/demo": "owned"}},
	{ident: "SecurityGroupDemoNameTagOnly", doc: "a demo VPC group whose Name tag (demo-extra) differs from its group name (Terraform's generated one): a name selector \"demo-extra\" matches nothing",
		groupName: "terraform-20251114093512345600000001", nameTag: "demo-extra", vpc: vpcDemo, desc: "Managed by Terraform",
		tags: map[string]string{"team": "platform"}},
	{ident: "SecurityGroupDemoDefault", doc: "the default group of the demo VPC (group name \"default\")",
		groupName: "default", vpc: vpcDemo, desc: "default VPC security group"},
	{ident: "SecurityGroupLegacyDefault", doc: "the default group of the legacy VPC: group name \"default\" matches a group in each VPC",
		groupName: "default", vpc: vpcLegacy, desc: "default VPC security group"},
	{ident: "SecurityGroupLegacyNode", doc: "node security group of the legacy VPC, tagged karpenter.sh/discovery=legacy",
		groupName: "legacy-node", nameTag: "legacy-node", vpc: vpcLegacy, desc: "legacy nodes",
		tags: map[string]string{discoveryKey: "legacy"}},
}

func (g securityGroupSpec) groupID() string {
	if g.id != "" {
		return g.id
	}
	return "sg-0" + hexOf("sg", g.vpc+"/"+g.groupName, 16)
}

func securityGroups() []ec2types.SecurityGroup {
	out := make([]ec2types.SecurityGroup, 0, len(securityGroupSpecs))
	for _, g := range securityGroupSpecs {
		id := g.groupID()
		out = append(out, ec2types.SecurityGroup{
			Description: ptr(g.desc),
			GroupId:     ptr(id),
			GroupName:   ptr(g.groupName),
			// Members of the group reach each other; everything may leave.
			IpPermissions: []ec2types.IpPermission{{
				IpProtocol:       ptr("-1"),
				IpRanges:         []ec2types.IpRange{},
				Ipv6Ranges:       []ec2types.Ipv6Range{},
				PrefixListIds:    []ec2types.PrefixListId{},
				UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: ptr(id), UserId: ptr(accountID)}},
			}},
			IpPermissionsEgress: []ec2types.IpPermission{{
				IpProtocol:       ptr("-1"),
				IpRanges:         []ec2types.IpRange{{CidrIp: ptr("0.0.0.0/0")}},
				Ipv6Ranges:       []ec2types.Ipv6Range{},
				PrefixListIds:    []ec2types.PrefixListId{},
				UserIdGroupPairs: []ec2types.UserIdGroupPair{},
			}},
			OwnerId:          ptr(accountID),
			SecurityGroupArn: ptr("arn:aws:ec2:" + region + ":" + accountID + ":security-group/" + id),
			Tags:             ec2Tags(g.tags, g.nameTag),
			VpcId:            ptr(g.vpc),
		})
	}
	return out
}

// offeredOnly limits instance types to some zones; every other type is
// offered in all four zones of the region.
var offeredOnly = map[string][]string{
	"p4d.24xlarge":       {"us-east-1d"}, // a GPU family in one zone, outside the demo VPC
	"u7i-12tb.224xlarge": {"us-east-1a"},
	"mac1.metal":         {"us-east-1a", "us-east-1b"},
	"trn1.2xlarge":       {"us-east-1b", "us-east-1d"},
	"inf2.xlarge":        {"us-east-1a", "us-east-1b", "us-east-1c"},
	"g4ad.xlarge":        {"us-east-1b", "us-east-1c"},
	"x2gd.large":         {"us-east-1a", "us-east-1c", "us-east-1d"},
	"m1.small":           {"us-east-1a", "us-east-1c", "us-east-1d"},
	"m7i-flex.large":     {"us-east-1a", "us-east-1b", "us-east-1c"},
}

var regionZones = []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}

// offerings lists availability-zone offerings, zone by zone, as
// `aws ec2 describe-instance-type-offerings --location-type availability-zone`
// prints them.
func offerings() []ec2types.InstanceTypeOffering {
	var out []ec2types.InstanceTypeOffering
	for _, zone := range regionZones {
		for _, it := range instanceTypes() {
			zones, limited := offeredOnly[string(it.InstanceType)]
			if limited && !slices.Contains(zones, zone) {
				continue
			}
			out = append(out, ec2types.InstanceTypeOffering{
				InstanceType: it.InstanceType,
				Location:     ptr(zone),
				LocationType: ec2types.LocationTypeAvailabilityZone,
			})
		}
	}
	return out
}

type capacityReservationSpec struct {
	ident, doc, name, instanceType, zone string
	state                                ec2types.CapacityReservationState
	match                                ec2types.InstanceMatchCriteria
	kind                                 ec2types.CapacityReservationType
	total, available                     int32
	start                                time.Time
	end                                  *time.Time
	tags                                 map[string]string
}

var capacityReservationSpecs = []capacityReservationSpec{
	{ident: "CapacityReservationDemoM5", doc: "active open reservation of 4 m5.large in us-east-1a (2 free), tagged karpenter.sh/discovery=demo",
		name: "demo-m5", instanceType: "m5.large", zone: "us-east-1a", state: ec2types.CapacityReservationStateActive,
		match: ec2types.InstanceMatchCriteriaOpen, kind: ec2types.CapacityReservationTypeDefault, total: 4, available: 2,
		start: time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC), tags: map[string]string{discoveryKey: "demo"}},
	{ident: "CapacityReservationDemoExpired", doc: "expired targeted g5.xlarge reservation in us-east-1b, tagged karpenter.sh/discovery=demo: Karpenter's state=active filter drops it",
		name: "demo-g5", instanceType: "g5.xlarge", zone: "us-east-1b", state: ec2types.CapacityReservationStateExpired,
		match: ec2types.InstanceMatchCriteriaTargeted, kind: ec2types.CapacityReservationTypeDefault, total: 2, available: 0,
		start: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), end: ptr(time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)),
		tags: map[string]string{discoveryKey: "demo"}},
	{ident: "CapacityReservationBlockP4d", doc: "active capacity block of one p4d.24xlarge in us-east-1d, tagged team=ml",
		name: "ml-p4d", instanceType: "p4d.24xlarge", zone: "us-east-1d", state: ec2types.CapacityReservationStateActive,
		match: ec2types.InstanceMatchCriteriaTargeted, kind: ec2types.CapacityReservationTypeCapacityBlock, total: 1, available: 1,
		start: time.Date(2026, 11, 20, 11, 30, 0, 0, time.UTC), end: ptr(time.Date(2026, 12, 4, 11, 30, 0, 0, time.UTC)),
		tags: map[string]string{"team": "ml"}},
}

func (c capacityReservationSpec) reservationID() string { return "cr-0" + hexOf("cr", c.name, 16) }

func capacityReservations() []ec2types.CapacityReservation {
	out := make([]ec2types.CapacityReservation, 0, len(capacityReservationSpecs))
	for _, c := range capacityReservationSpecs {
		id := c.reservationID()
		endType := ec2types.EndDateTypeUnlimited
		if c.end != nil {
			endType = ec2types.EndDateTypeLimited
		}
		out = append(out, ec2types.CapacityReservation{
			AvailabilityZone:       ptr(c.zone),
			AvailabilityZoneId:     ptr(zoneIDs[c.zone]),
			AvailableInstanceCount: ptr(c.available),
			CapacityReservationArn: ptr("arn:aws:ec2:" + region + ":" + accountID + ":capacity-reservation/" + id),
			CapacityReservationId:  ptr(id),
			CreateDate:             ptr(c.start.Add(-time.Hour)),
			EbsOptimized:           ptr(true),
			EndDate:                c.end,
			EndDateType:            endType,
			EphemeralStorage:       ptr(false),
			InstanceMatchCriteria:  c.match,
			InstancePlatform:       ec2types.CapacityReservationInstancePlatformLinuxUnix,
			InstanceType:           ptr(c.instanceType),
			OwnerId:                ptr(accountID),
			ReservationType:        c.kind,
			StartDate:              ptr(c.start),
			State:                  c.state,
			Tags:                   ec2Tags(c.tags, c.name),
			Tenancy:                ec2types.CapacityReservationTenancyDefault,
			TotalInstanceCount:     ptr(c.total),
		})
	}
	return out
}

// IAM: the node role of cluster demo and its instance profile, an instance
// profile without a role, and a role to assume for plans.
const (
	roleNodeDemo            = "KarpenterNodeRole-demo"
	roleTerraformPlan       = "TerraformPlan"
	instanceProfileDemo     = "KarpenterNodeInstanceProfile-demo"
	instanceProfileRoleless = "KarpenterNodeInstanceProfile-empty"
)

func trustPolicy(principal map[string]string) string {
	doc, _ := json.Marshal(map[string]any{ // a map of strings always marshals
		"Version": "2012-10-17",
		"Statement": []any{map[string]any{
			"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole",
		}},
	})
	return string(doc)
}

func role(name, description string, principal map[string]string, created time.Time) iamtypes.Role {
	return iamtypes.Role{
		Arn:                      ptr("arn:aws:iam::" + accountID + ":role/" + name),
		AssumeRolePolicyDocument: ptr(trustPolicy(principal)),
		CreateDate:               ptr(created),
		Description:              ptr(description),
		MaxSessionDuration:       ptr(int32(3600)),
		Path:                     ptr("/"),
		RoleId:                   ptr("AROA" + strings.ToUpper(hexOf("role", name, 17))),
		RoleName:                 ptr(name),
	}
}

func roles() []iamtypes.Role {
	return []iamtypes.Role{
		role(roleNodeDemo, "Karpenter node role of cluster demo", map[string]string{"Service": "ec2.amazonaws.com"},
			time.Date(2025, 3, 14, 9, 20, 0, 0, time.UTC)),
		role(roleTerraformPlan, "Read-only role Terraform plans assume", map[string]string{"AWS": "arn:aws:iam::" + accountID + ":root"},
			time.Date(2025, 3, 14, 9, 5, 0, 0, time.UTC)),
	}
}

func instanceProfiles() []iamtypes.InstanceProfile {
	profile := func(name string, rs []iamtypes.Role, created time.Time) iamtypes.InstanceProfile {
		return iamtypes.InstanceProfile{
			Arn:                 ptr("arn:aws:iam::" + accountID + ":instance-profile/" + name),
			CreateDate:          ptr(created),
			InstanceProfileId:   ptr("AIPA" + strings.ToUpper(hexOf("instance-profile", name, 17))),
			InstanceProfileName: ptr(name),
			Path:                ptr("/"),
			Roles:               rs,
		}
	}
	return []iamtypes.InstanceProfile{
		profile(instanceProfileDemo, roles()[:1], time.Date(2025, 3, 14, 9, 21, 0, 0, time.UTC)),
		profile(instanceProfileRoleless, []iamtypes.Role{}, time.Date(2025, 5, 2, 16, 0, 0, 0, time.UTC)),
	}
}

// ec2Tags renders tags sorted by key, with Name first when given, as the
// console shows them.
func ec2Tags(tags map[string]string, name string) []ec2types.Tag {
	out := []ec2types.Tag{}
	if name != "" {
		out = append(out, ec2types.Tag{Key: ptr("Name"), Value: ptr(name)})
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, ec2types.Tag{Key: ptr(k), Value: ptr(tags[k])})
	}
	return out
}

// networkIndex lists the Go constants of fixture_index.go for this file's
// fixtures.
func networkIndex() []indexEntry {
	var out []indexEntry
	add := func(ident, doc, value string) {
		out = append(out, indexEntry{Ident: ident, Doc: doc, ID: value})
	}
	add("VPCDemo", "the VPC of cluster demo (10.0.0.0/16), zones us-east-1a, b and c", vpcDemo)
	add("VPCLegacy", "a second VPC (172.31.0.0/16), zones us-east-1a and d", vpcLegacy)
	for _, s := range subnetSpecs {
		add(s.ident, s.doc, s.subnetID())
	}
	for _, g := range securityGroupSpecs {
		add(g.ident, g.doc, g.groupID())
	}
	for _, c := range capacityReservationSpecs {
		add(c.ident, c.doc, c.reservationID())
	}
	add("RoleNodeDemo", "the node role of cluster demo", roleNodeDemo)
	add("RoleTerraformPlan", "a role the account may assume (sts:AssumeRole)", roleTerraformPlan)
	add("InstanceProfileDemo", "instance profile holding RoleNodeDemo", instanceProfileDemo)
	add("InstanceProfileRoleless", "an instance profile without a role", instanceProfileRoleless)
	return out
}
