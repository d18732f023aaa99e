package awsemu

import (
	"bytes"
	"net/url"
	"strings"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

// NotServedCode is the error code DescribeSubnets answers when the fixture
// set has no subnets.json: the endpoint cannot answer readiness questions
// (EC2's own code for an operation a region does not support). An empty
// subnets.json answers "no subnets" instead.
const NotServedCode = "UnsupportedOperation"

// listSpec describes one EC2 Describe* operation over fixtures of type T:
// ids by <idParam>.N, filters (values ORed, filters ANDed; tag:K, tag-key
// and tag-value for every type with tags), MaxResults/NextToken paging.
type listSpec[T any] struct {
	idParam string
	id      func(*T) string
	// notFound is the error for ids that do not exist, as EC2 words it.
	notFound func(missing []string) *apiError
	// idsExcludeMaxResults: EC2 refuses MaxResults together with ids.
	idsExcludeMaxResults bool
	filters              map[string]func(*T) []string
	tags                 func(*T) []ec2types.Tag
	minPage, maxPage     int
	defaultPage          int // page size without MaxResults; 0: everything
	setElement           string
}

// list answers a Describe* call of spec over items (fixture order).
func list[T any](form url.Values, items []T, spec listSpec[T]) (func(*bytes.Buffer), *apiError) {
	ids := indexedValues(form, spec.idParam)
	if spec.idsExcludeMaxResults && len(ids) > 0 && form.Get("MaxResults") != "" {
		return nil, badRequest("InvalidParameterCombination",
			"The parameter "+lowerFirstASCII(spec.idParam)+"s cannot be used with the parameter maxResults")
	}
	pr, err := parsePageRequest(form, spec.minPage, spec.maxPage)
	if err != nil {
		return nil, err
	}
	filters, err := parseFilters(form)
	if err != nil {
		return nil, err
	}
	values := make([]func(*T) []string, len(filters))
	for i, f := range filters {
		if values[i] = spec.filter(f.name); values[i] == nil {
			return nil, badRequest("InvalidParameterValue", "The filter '"+f.name+"' is invalid")
		}
	}
	wanted := map[string]bool{}
	for _, id := range ids {
		wanted[id] = true
	}
	var missing []string
	for _, id := range ids {
		found := false
		for i := range items {
			found = found || spec.id(&items[i]) == id
		}
		if !found {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, spec.notFound(missing)
	}
	matched := make([]T, 0)
next:
	for i := range items {
		it := &items[i]
		if len(ids) > 0 && !wanted[spec.id(it)] {
			continue
		}
		for j, f := range filters {
			if !f.matchAny(values[j](it)) {
				continue next
			}
		}
		matched = append(matched, *it)
	}
	start, end, token, err := pr.page(len(matched), spec.defaultPage)
	if err != nil {
		return nil, err
	}
	return func(b *bytes.Buffer) {
		shape.WriteEC2XML(b, spec.setElement, matched[start:end])
		if token != "" {
			xmlElem(b, "nextToken", token)
		}
	}, nil
}

// filter returns the values an item has for a filter name, or nil when EC2
// does not know the name for this operation.
func (spec listSpec[T]) filter(name string) func(*T) []string {
	if spec.tags != nil {
		if key, ok := strings.CutPrefix(name, "tag:"); ok {
			return func(it *T) []string {
				var out []string
				for _, t := range spec.tags(it) {
					if deref(t.Key) == key {
						out = append(out, deref(t.Value))
					}
				}
				return out
			}
		}
		switch name {
		case "tag-key", "tag-value":
			return func(it *T) []string {
				var out []string
				for _, t := range spec.tags(it) {
					if name == "tag-key" {
						out = append(out, deref(t.Key))
					} else {
						out = append(out, deref(t.Value))
					}
				}
				return out
			}
		}
	}
	return spec.filters[name]
}

func lowerFirstASCII(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func notFoundEach(code, format string) func([]string) *apiError {
	return func(missing []string) *apiError {
		return badRequest(code, strings.ReplaceAll(format, "%s", strings.Join(missing, ", ")))
	}
}

// DescribeSubnets: SubnetId.N (unknown ids are InvalidSubnetID.NotFound),
// the filters Karpenter and the console use, MaxResults 5..1000. Without a
// subnets.json the call is not served (NotServedCode).
func (s *Server) describeSubnets(form url.Values) (func(*bytes.Buffer), *apiError) {
	if s.subnets == nil {
		return nil, badRequest(NotServedCode,
			"awsemu: the fixture set has no "+SubnetsFile+", so DescribeSubnets is not served; add one ({\"Subnets\": []} for none)")
	}
	return list(form, s.subnets, listSpec[ec2types.Subnet]{
		idParam:  "SubnetId",
		id:       func(sn *ec2types.Subnet) string { return deref(sn.SubnetId) },
		notFound: notFoundEach("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist"),
		tags:     func(sn *ec2types.Subnet) []ec2types.Tag { return sn.Tags },
		filters: map[string]func(*ec2types.Subnet) []string{
			"subnet-id":            func(sn *ec2types.Subnet) []string { return ptr(sn.SubnetId) },
			"vpc-id":               func(sn *ec2types.Subnet) []string { return ptr(sn.VpcId) },
			"availability-zone":    func(sn *ec2types.Subnet) []string { return ptr(sn.AvailabilityZone) },
			"availability-zone-id": func(sn *ec2types.Subnet) []string { return ptr(sn.AvailabilityZoneId) },
			"cidr-block":           func(sn *ec2types.Subnet) []string { return ptr(sn.CidrBlock) },
			"default-for-az":       func(sn *ec2types.Subnet) []string { return boolPtr(sn.DefaultForAz) },
			"owner-id":             func(sn *ec2types.Subnet) []string { return ptr(sn.OwnerId) },
			"state":                func(sn *ec2types.Subnet) []string { return str(sn.State) },
			"subnet-arn":           func(sn *ec2types.Subnet) []string { return ptr(sn.SubnetArn) },
			"available-ip-address-count": func(sn *ec2types.Subnet) []string {
				return int32Ptr(sn.AvailableIpAddressCount)
			},
		},
		minPage: 5, maxPage: 1000,
		setElement: "subnetSet",
	})
}

// DescribeSecurityGroups: GroupId.N (unknown ids are InvalidGroup.NotFound;
// not together with MaxResults, as in EC2), GroupName.N, filters,
// MaxResults 5..1000.
func (s *Server) describeSecurityGroups(form url.Values) (func(*bytes.Buffer), *apiError) {
	groups := s.securityGroups
	if byName := indexedValues(form, "GroupName"); len(byName) > 0 {
		// GroupName.N names groups of the default VPC in AWS; the emulator
		// has no default VPC and looks names up everywhere.
		wanted := map[string]bool{}
		for _, n := range byName {
			wanted[n] = true
		}
		groups = nil
		for _, g := range s.securityGroups {
			if wanted[deref(g.GroupName)] {
				groups = append(groups, g)
				delete(wanted, deref(g.GroupName))
			}
		}
		for n := range wanted {
			return nil, badRequest("InvalidGroup.NotFound", "The security group '"+n+"' does not exist in default VPC")
		}
	}
	return list(form, groups, listSpec[ec2types.SecurityGroup]{
		idParam:              "GroupId",
		id:                   func(g *ec2types.SecurityGroup) string { return deref(g.GroupId) },
		notFound:             notFoundEach("InvalidGroup.NotFound", "The security group '%s' does not exist"),
		idsExcludeMaxResults: true,
		tags:                 func(g *ec2types.SecurityGroup) []ec2types.Tag { return g.Tags },
		filters: map[string]func(*ec2types.SecurityGroup) []string{
			"group-id":    func(g *ec2types.SecurityGroup) []string { return ptr(g.GroupId) },
			"group-name":  func(g *ec2types.SecurityGroup) []string { return ptr(g.GroupName) },
			"vpc-id":      func(g *ec2types.SecurityGroup) []string { return ptr(g.VpcId) },
			"description": func(g *ec2types.SecurityGroup) []string { return ptr(g.Description) },
			"owner-id":    func(g *ec2types.SecurityGroup) []string { return ptr(g.OwnerId) },
		},
		minPage: 5, maxPage: 1000,
		setElement: "securityGroupInfo",
	})
}

// DescribeInstanceTypeOfferings: LocationType (default region), filters
// location and instance-type, MaxResults 5..1000. Offerings of the asked
// location type come from the fixtures; region offerings are derived from
// zone ones when the fixtures have none of their own.
func (s *Server) describeInstanceTypeOfferings(form url.Values) (func(*bytes.Buffer), *apiError) {
	lt := ec2types.LocationType(form.Get("LocationType"))
	if lt == "" {
		lt = ec2types.LocationTypeRegion
	}
	known := false
	for _, v := range lt.Values() {
		known = known || v == lt
	}
	if !known {
		return nil, badRequest("InvalidParameterValue",
			"Value ("+string(lt)+") for parameter locationType is invalid. Unknown location type.")
	}
	offerings := make([]ec2types.InstanceTypeOffering, 0)
	for _, o := range s.offerings {
		if o.LocationType == lt {
			offerings = append(offerings, o)
		}
	}
	if len(offerings) == 0 && lt == ec2types.LocationTypeRegion {
		seen := map[ec2types.InstanceType]bool{}
		for _, o := range s.offerings {
			if o.LocationType == ec2types.LocationTypeAvailabilityZone && !seen[o.InstanceType] {
				seen[o.InstanceType] = true
				offerings = append(offerings, ec2types.InstanceTypeOffering{
					InstanceType: o.InstanceType, LocationType: lt, Location: &s.opts.Region,
				})
			}
		}
	}
	return list(form, offerings, listSpec[ec2types.InstanceTypeOffering]{
		filters: map[string]func(*ec2types.InstanceTypeOffering) []string{
			"location":      func(o *ec2types.InstanceTypeOffering) []string { return ptr(o.Location) },
			"instance-type": func(o *ec2types.InstanceTypeOffering) []string { return str(o.InstanceType) },
		},
		id:      func(o *ec2types.InstanceTypeOffering) string { return "" },
		minPage: 5, maxPage: 1000,
		setElement: "instanceTypeOfferingSet",
	})
}

// DescribeCapacityReservations: CapacityReservationId.N (unknown ids are
// InvalidCapacityReservationId.NotFound, which Karpenter reads as "none"),
// the filters Karpenter sends (state, owner-id, tag:K, tag-key,
// instance-match-criteria) and a few more, MaxResults 1..1000.
func (s *Server) describeCapacityReservations(form url.Values) (func(*bytes.Buffer), *apiError) {
	return list(form, s.capacityReservations, listSpec[ec2types.CapacityReservation]{
		idParam: "CapacityReservationId",
		id:      func(c *ec2types.CapacityReservation) string { return deref(c.CapacityReservationId) },
		notFound: notFoundEach("InvalidCapacityReservationId.NotFound",
			"The capacity reservation ID '%s' does not exist"),
		tags: func(c *ec2types.CapacityReservation) []ec2types.Tag { return c.Tags },
		filters: map[string]func(*ec2types.CapacityReservation) []string{
			"state":                   func(c *ec2types.CapacityReservation) []string { return str(c.State) },
			"owner-id":                func(c *ec2types.CapacityReservation) []string { return ptr(c.OwnerId) },
			"instance-type":           func(c *ec2types.CapacityReservation) []string { return ptr(c.InstanceType) },
			"availability-zone":       func(c *ec2types.CapacityReservation) []string { return ptr(c.AvailabilityZone) },
			"instance-match-criteria": func(c *ec2types.CapacityReservation) []string { return str(c.InstanceMatchCriteria) },
			"instance-platform":       func(c *ec2types.CapacityReservation) []string { return str(c.InstancePlatform) },
			"tenancy":                 func(c *ec2types.CapacityReservation) []string { return str(c.Tenancy) },
			"end-date-type":           func(c *ec2types.CapacityReservation) []string { return str(c.EndDateType) },
		},
		minPage: 1, maxPage: 1000,
		setElement: "capacityReservationSet",
	})
}
