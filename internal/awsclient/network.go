package awsclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"
)

// ErrNotServed is wrapped by DescribeSubnets (and the selections built on
// it) when the endpoint does not serve ec2:DescribeSubnets at all: the
// project's emulator with a fixture set that has no subnets.json answers
// UnsupportedOperation. Callers skip readiness checks with one warning.
var ErrNotServed = errors.New("the EC2 endpoint does not serve DescribeSubnets")

// The page sizes Karpenter asks for (pkg/providers/subnet, securitygroup,
// capacityreservation).
const (
	subnetPageSize              = 500
	securityGroupPageSize       = 500
	capacityReservationPageSize = 1000
	offeringsPageSize           = 1000 // pkg/providers/instancetype UpdateInstanceTypeOfferings
)

// Subnet is the part of an EC2 subnet readiness checks read.
type Subnet struct {
	ID, VPCID, Zone, ZoneID, CIDR, State string
	AvailableIPs                         int32
	Tags                                 map[string]string
}

// SecurityGroup is the part of an EC2 security group readiness checks read.
type SecurityGroup struct {
	ID, Name, VPCID, Description string
	Tags                         map[string]string
}

// CapacityReservation is the part of an EC2 capacity reservation Karpenter
// puts in an EC2NodeClass's status.
type CapacityReservation struct {
	ID, InstanceType, Zone, ZoneID, OwnerID, State string
	InstanceMatchCriteria                          string // open | targeted
	ReservationType                                string // default | capacity-block
	EndDate                                        time.Time
	Available, Total                               int32
	Interruptible                                  bool
	Tags                                           map[string]string
}

// Role is the outcome of iam:GetRole; Found is false when IAM answered
// NoSuchEntity.
type Role struct {
	Name, ARN, Path string
	Found           bool
}

// InstanceProfile is the outcome of iam:GetInstanceProfile; Found is false
// when IAM answered NoSuchEntity. Roles are role names.
type InstanceProfile struct {
	Name, ARN, Path string
	Roles           []string
	Found           bool
}

// SubnetTerm is one subnetSelectorTerm; CapacityReservationTerm and
// SecurityGroupTerm likewise. A term with no field set is skipped (the CRD
// rejects it, and Karpenter would send an unfiltered query for it).
type SubnetTerm struct {
	ID   string
	Tags map[string]string
}

// SecurityGroupTerm is one securityGroupSelectorTerm; Name is the group
// name (GroupName), not its Name tag.
type SecurityGroupTerm struct {
	ID, Name string
	Tags     map[string]string
}

// CapacityReservationTerm is one capacityReservationSelectorTerm.
type CapacityReservationTerm struct {
	ID, OwnerID, InstanceMatchCriteria string
	Tags                               map[string]string
}

// TermQuery is one Describe* request Karpenter sends for a list of selector
// terms, and which terms (by index) it answers.
type TermQuery struct {
	Filters []Filter
	// IDs are sent as CapacityReservationId.N (only capacity reservation
	// id terms use them; subnet and group ids go in a filter).
	IDs   []string
	Terms []int
}

// Key is the query's canonical cache key.
func (q TermQuery) Key() string {
	return ImageQuery{Filters: q.Filters}.Key() + fmt.Sprintf(";ids=%q", slices.Sorted(slices.Values(q.IDs)))
}

func (q TermQuery) String() string {
	var parts []string
	if len(q.IDs) > 0 {
		parts = append(parts, "ids="+strings.Join(q.IDs, ","))
	}
	for _, f := range q.Filters {
		parts = append(parts, f.Name+"="+strings.Join(f.Values, ","))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// tagFilters is Karpenter's translation of selector tags: "*" is tag-key,
// anything else tag:K=V; one filter per tag, so tags are ANDed.
func tagFilters(tags map[string]string) []Filter {
	var out []Filter
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if v := tags[k]; v == "*" {
			out = append(out, Filter{Name: "tag-key", Values: []string{k}})
		} else {
			out = append(out, Filter{Name: "tag:" + k, Values: []string{v}})
		}
	}
	return out
}

// batched is the query that carries every term's value under one filter
// name (Karpenter's subnet-id, group-id and group-name queries).
func batched(name string, values []string, terms []int) []TermQuery {
	if len(values) == 0 {
		return nil
	}
	return []TermQuery{{Filters: []Filter{{Name: name, Values: values}}, Terms: terms}}
}

// SubnetQueries are the DescribeSubnets requests Karpenter sends for terms
// (pkg/providers/subnet getFilterSets): one per tags term, and one subnet-id
// filter for all id terms together.
func SubnetQueries(terms []SubnetTerm) []TermQuery {
	var out []TermQuery
	var ids []string
	var idTerms []int
	for i, t := range terms {
		switch {
		case t.ID != "":
			ids, idTerms = append(ids, t.ID), append(idTerms, i)
		case len(t.Tags) > 0:
			out = append(out, TermQuery{Filters: tagFilters(t.Tags), Terms: []int{i}})
		}
	}
	return append(out, batched("subnet-id", ids, idTerms)...)
}

// SecurityGroupQueries are the DescribeSecurityGroups requests Karpenter
// sends (pkg/providers/securitygroup getFilterSets): one per tags term, one
// group-id filter for all id terms, one group-name filter for all name
// terms. `name` is matched against the group name only, never the Name tag.
func SecurityGroupQueries(terms []SecurityGroupTerm) []TermQuery {
	var out []TermQuery
	var ids, names []string
	var idTerms, nameTerms []int
	for i, t := range terms {
		switch {
		case t.ID != "":
			ids, idTerms = append(ids, t.ID), append(idTerms, i)
		case t.Name != "":
			names, nameTerms = append(names, t.Name), append(nameTerms, i)
		case len(t.Tags) > 0:
			out = append(out, TermQuery{Filters: tagFilters(t.Tags), Terms: []int{i}})
		}
	}
	out = append(out, batched("group-id", ids, idTerms)...)
	return append(out, batched("group-name", names, nameTerms)...)
}

// CapacityReservationQueries are Karpenter's DescribeCapacityReservations
// requests (pkg/providers/capacityreservation QueriesFromSelectorTerms):
// per term, one by id (with state=active) and, when the term has tags or
// instanceMatchCriteria, one by filters (state=active, owner-id, tags,
// instance-match-criteria). A term with only ownerID sends nothing.
func CapacityReservationQueries(terms []CapacityReservationTerm) []TermQuery {
	active := Filter{Name: "state", Values: []string{"active"}}
	var out []TermQuery
	for i, t := range terms {
		if t.ID != "" {
			out = append(out, TermQuery{Filters: []Filter{active}, IDs: []string{t.ID}, Terms: []int{i}})
		}
		if len(t.Tags) > 0 || t.InstanceMatchCriteria != "" {
			fs := []Filter{active}
			if t.OwnerID != "" {
				fs = append(fs, Filter{Name: "owner-id", Values: []string{t.OwnerID}})
			}
			fs = append(fs, tagFilters(t.Tags)...)
			if t.InstanceMatchCriteria != "" {
				fs = append(fs, Filter{Name: "instance-match-criteria", Values: []string{t.InstanceMatchCriteria}})
			}
			out = append(out, TermQuery{Filters: fs, Terms: []int{i}})
		}
	}
	return out
}

// Selection is what a list of selector terms resolved to: every match once
// (in Karpenter's status order), and what each term matched.
type Selection[T any] struct {
	All    []T
	ByTerm [][]T
	// Queries are the requests sent, in the order Karpenter sends them.
	Queries []TermQuery
}

// SecurityGroupSelection adds, for each name term that matched no group
// name, the groups whose Name tag is that name (Karpenter ignores the Name
// tag; a diagnostic can point at the group the user meant).
type SecurityGroupSelection struct {
	Selection[SecurityGroup]
	NameTagMatches map[int][]SecurityGroup
}

// select runs every query (each cached on its own) and files the answers
// by term: a batched id or name query's answer goes to the terms whose value
// it carries (match reports whether an item answers a term).
func selectTerms[T any](ctx context.Context, nTerms int, queries []TermQuery, run func(context.Context, TermQuery) ([]T, error),
	id func(T) string, match func(term int, item T) bool, less func(a, b T) bool) (Selection[T], error) {
	sel := Selection[T]{ByTerm: make([][]T, nTerms), Queries: queries}
	seen := map[string]bool{}
	for _, q := range queries {
		items, err := run(ctx, q)
		if err != nil {
			return Selection[T]{}, err
		}
		for _, it := range items {
			if !seen[id(it)] {
				seen[id(it)] = true
				sel.All = append(sel.All, it)
			}
			for _, term := range q.Terms {
				if len(q.Terms) == 1 || match(term, it) {
					sel.ByTerm[term] = append(sel.ByTerm[term], it)
				}
			}
		}
	}
	sort.SliceStable(sel.All, func(i, j int) bool { return less(sel.All[i], sel.All[j]) })
	return sel, nil
}

// SelectSubnets resolves subnet selector terms as Karpenter does; All is in
// the order of an EC2NodeClass's status.subnets (most free addresses first,
// then id: pkg/controllers/nodeclass/subnet.go).
func (c *Cache) SelectSubnets(ctx context.Context, terms []SubnetTerm) (Selection[Subnet], error) {
	return selectTerms(ctx, len(terms), SubnetQueries(terms), c.DescribeSubnets,
		func(s Subnet) string { return s.ID },
		func(term int, s Subnet) bool { return terms[term].ID == s.ID },
		func(a, b Subnet) bool {
			if a.AvailableIPs != b.AvailableIPs {
				return a.AvailableIPs > b.AvailableIPs
			}
			return a.ID < b.ID
		})
}

// SelectSecurityGroups resolves security group selector terms as Karpenter
// does; All is sorted by id (status.securityGroups). For name terms that
// matched nothing, one more (cached) query by Name tag fills NameTagMatches.
func (c *Cache) SelectSecurityGroups(ctx context.Context, terms []SecurityGroupTerm) (SecurityGroupSelection, error) {
	sel, err := selectTerms(ctx, len(terms), SecurityGroupQueries(terms), c.DescribeSecurityGroups,
		func(g SecurityGroup) string { return g.ID },
		func(term int, g SecurityGroup) bool {
			return terms[term].ID != "" && terms[term].ID == g.ID || terms[term].ID == "" && terms[term].Name == g.Name
		},
		func(a, b SecurityGroup) bool { return a.ID < b.ID })
	if err != nil {
		return SecurityGroupSelection{}, err
	}
	out := SecurityGroupSelection{Selection: sel}
	var missed []string
	for i, t := range terms {
		if t.ID == "" && t.Name != "" && len(sel.ByTerm[i]) == 0 {
			missed = append(missed, t.Name)
		}
	}
	if len(missed) == 0 {
		return out, nil
	}
	tagged, err := c.DescribeSecurityGroups(ctx, TermQuery{Filters: []Filter{{Name: "tag:Name", Values: dedupe(missed)}}})
	if err != nil {
		return SecurityGroupSelection{}, err
	}
	out.NameTagMatches = map[int][]SecurityGroup{}
	for i, t := range terms {
		for _, g := range tagged {
			if t.ID == "" && t.Name != "" && len(sel.ByTerm[i]) == 0 && g.Tags["Name"] == t.Name {
				out.NameTagMatches[i] = append(out.NameTagMatches[i], g)
			}
		}
	}
	return out, nil
}

// SelectCapacityReservations resolves capacity reservation selector terms
// as Karpenter does, sorted by id (status.capacityReservations). Expired
// reservations (EndDate before now) are kept: callers filter with their
// own clock, as Karpenter's filterReservations does.
func (c *Cache) SelectCapacityReservations(ctx context.Context, terms []CapacityReservationTerm) (Selection[CapacityReservation], error) {
	return selectTerms(ctx, len(terms), CapacityReservationQueries(terms), c.DescribeCapacityReservations,
		func(r CapacityReservation) string { return r.ID },
		func(int, CapacityReservation) bool { return true }, // every query answers one term
		func(a, b CapacityReservation) bool { return a.ID < b.ID })
}

// remember answers key from the per-process cache, or runs fetch once for
// all concurrent callers and caches its answer (errors too, unless a caller
// was cancelled).
func remember[T any](ctx context.Context, c *Cache, key string, fetch func(context.Context) (T, error)) (T, error) {
	lookup := func() (T, error, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		hit, ok := c.answers[key]
		if !ok {
			var zero T
			return zero, nil, false
		}
		v, _ := hit.val.(T)
		return v, hit.err, true
	}
	if v, err, ok := lookup(); ok {
		return v, err
	}
	v, err, _ := c.group.Do(key, func() (any, error) {
		if v, err, ok := lookup(); ok {
			return v, err
		}
		v, err := fetch(ctx)
		if err == nil || cacheable(err) {
			c.mu.Lock()
			c.answers[key] = cached[any]{v, err}
			c.mu.Unlock()
		}
		return v, err
	})
	out, _ := v.(T)
	return out, err
}

// DescribeSubnets answers one query, all pages, once per process. An
// endpoint that does not serve the operation yields an error wrapping
// ErrNotServed.
func (c *Cache) DescribeSubnets(ctx context.Context, q TermQuery) ([]Subnet, error) {
	return remember(ctx, c, "subnets:"+q.Key(), func(ctx context.Context) ([]Subnet, error) {
		client, err := c.clients.ec2Client(ctx)
		if err != nil {
			return nil, err
		}
		in := &ec2.DescribeSubnetsInput{Filters: sdkFilters(q.Filters), MaxResults: aws.Int32(subnetPageSize)}
		var out []Subnet
		for {
			page, err := client.DescribeSubnets(ctx, in)
			if err != nil {
				var ae smithy.APIError
				if errors.As(err, &ae) && ae.ErrorCode() == "UnsupportedOperation" {
					return nil, fmt.Errorf("ec2:DescribeSubnets %s: %w: %w", q, ErrNotServed, err)
				}
				return nil, fmt.Errorf("ec2:DescribeSubnets %s: %w", q, err)
			}
			for _, s := range page.Subnets {
				out = append(out, Subnet{
					ID: aws.ToString(s.SubnetId), VPCID: aws.ToString(s.VpcId),
					Zone: aws.ToString(s.AvailabilityZone), ZoneID: aws.ToString(s.AvailabilityZoneId),
					CIDR: aws.ToString(s.CidrBlock), State: string(s.State),
					AvailableIPs: aws.ToInt32(s.AvailableIpAddressCount), Tags: tagMap(s.Tags),
				})
			}
			if aws.ToString(page.NextToken) == "" {
				return out, nil
			}
			in.NextToken = page.NextToken
		}
	})
}

// DescribeSecurityGroups answers one query, all pages, once per process.
func (c *Cache) DescribeSecurityGroups(ctx context.Context, q TermQuery) ([]SecurityGroup, error) {
	return remember(ctx, c, "security-groups:"+q.Key(), func(ctx context.Context) ([]SecurityGroup, error) {
		client, err := c.clients.ec2Client(ctx)
		if err != nil {
			return nil, err
		}
		in := &ec2.DescribeSecurityGroupsInput{Filters: sdkFilters(q.Filters), MaxResults: aws.Int32(securityGroupPageSize)}
		var out []SecurityGroup
		for {
			page, err := client.DescribeSecurityGroups(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("ec2:DescribeSecurityGroups %s: %w", q, err)
			}
			for _, g := range page.SecurityGroups {
				out = append(out, SecurityGroup{
					ID: aws.ToString(g.GroupId), Name: aws.ToString(g.GroupName), VPCID: aws.ToString(g.VpcId),
					Description: aws.ToString(g.Description), Tags: tagMap(g.Tags),
				})
			}
			if aws.ToString(page.NextToken) == "" {
				return out, nil
			}
			in.NextToken = page.NextToken
		}
	})
}

// DescribeCapacityReservations answers one query, all pages, once per
// process. As in Karpenter, an id that does not exist
// (InvalidCapacityReservationId.NotFound) is an empty answer, not an error.
func (c *Cache) DescribeCapacityReservations(ctx context.Context, q TermQuery) ([]CapacityReservation, error) {
	return remember(ctx, c, "capacity-reservations:"+q.Key(), func(ctx context.Context) ([]CapacityReservation, error) {
		client, err := c.clients.ec2Client(ctx)
		if err != nil {
			return nil, err
		}
		in := &ec2.DescribeCapacityReservationsInput{Filters: sdkFilters(q.Filters), CapacityReservationIds: q.IDs}
		if len(q.IDs) == 0 {
			in.MaxResults = aws.Int32(capacityReservationPageSize)
		}
		var out []CapacityReservation
		for {
			page, err := client.DescribeCapacityReservations(ctx, in)
			if err != nil {
				var ae smithy.APIError
				if errors.As(err, &ae) && strings.HasSuffix(ae.ErrorCode(), ".NotFound") {
					return out, nil
				}
				return nil, fmt.Errorf("ec2:DescribeCapacityReservations %s: %w", q, err)
			}
			for _, r := range page.CapacityReservations {
				out = append(out, CapacityReservation{
					ID: aws.ToString(r.CapacityReservationId), InstanceType: aws.ToString(r.InstanceType),
					Zone: aws.ToString(r.AvailabilityZone), ZoneID: aws.ToString(r.AvailabilityZoneId),
					OwnerID: aws.ToString(r.OwnerId), State: string(r.State),
					InstanceMatchCriteria: string(r.InstanceMatchCriteria), ReservationType: string(r.ReservationType),
					EndDate: aws.ToTime(r.EndDate), Available: aws.ToInt32(r.AvailableInstanceCount),
					Total: aws.ToInt32(r.TotalInstanceCount), Interruptible: aws.ToBool(r.Interruptible), Tags: tagMap(r.Tags),
				})
			}
			if aws.ToString(page.NextToken) == "" {
				return out, nil
			}
			in.NextToken = page.NextToken
		}
	})
}

// OfferingsByZone returns, for every availability zone of the region, the
// instance types offered there (sorted), from one paginated
// DescribeInstanceTypeOfferings (LocationType availability-zone, MaxResults
// 1000, as Karpenter's instance type provider asks), once per process.
func (c *Cache) OfferingsByZone(ctx context.Context) (map[string][]string, error) {
	return remember(ctx, c, "offerings:availability-zone", func(ctx context.Context) (map[string][]string, error) {
		client, err := c.clients.ec2Client(ctx)
		if err != nil {
			return nil, err
		}
		in := &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone, MaxResults: aws.Int32(offeringsPageSize)}
		out := map[string][]string{}
		for {
			page, err := client.DescribeInstanceTypeOfferings(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("ec2:DescribeInstanceTypeOfferings (availability-zone): %w", err)
			}
			for _, o := range page.InstanceTypeOfferings {
				zone := aws.ToString(o.Location)
				out[zone] = append(out[zone], string(o.InstanceType))
			}
			if aws.ToString(page.NextToken) == "" {
				break
			}
			in.NextToken = page.NextToken
		}
		for zone := range out {
			out[zone] = dedupe(out[zone])
		}
		return out, nil
	})
}

// GetRole looks a role up by name, once per name; a role IAM does not have
// is Found false, not an error.
func (c *Cache) GetRole(ctx context.Context, name string) (Role, error) {
	return remember(ctx, c, "role:"+name, func(ctx context.Context) (Role, error) {
		client, err := c.clients.iamClient(ctx)
		if err != nil {
			return Role{}, err
		}
		resp, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
		var nse *iamtypes.NoSuchEntityException
		switch {
		case errors.As(err, &nse):
			return Role{Name: name}, nil
		case err != nil:
			return Role{}, fmt.Errorf("iam:GetRole %q: %w", name, err)
		}
		return Role{Name: aws.ToString(resp.Role.RoleName), ARN: aws.ToString(resp.Role.Arn), Path: aws.ToString(resp.Role.Path), Found: true}, nil
	})
}

// GetInstanceProfile looks an instance profile up by name, once per name; a
// profile IAM does not have is Found false, not an error.
func (c *Cache) GetInstanceProfile(ctx context.Context, name string) (InstanceProfile, error) {
	return remember(ctx, c, "instance-profile:"+name, func(ctx context.Context) (InstanceProfile, error) {
		client, err := c.clients.iamClient(ctx)
		if err != nil {
			return InstanceProfile{}, err
		}
		resp, err := client.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
		var nse *iamtypes.NoSuchEntityException
		switch {
		case errors.As(err, &nse):
			return InstanceProfile{Name: name}, nil
		case err != nil:
			return InstanceProfile{}, fmt.Errorf("iam:GetInstanceProfile %q: %w", name, err)
		}
		p := resp.InstanceProfile
		out := InstanceProfile{Name: aws.ToString(p.InstanceProfileName), ARN: aws.ToString(p.Arn), Path: aws.ToString(p.Path), Found: true}
		for _, r := range p.Roles {
			out.Roles = append(out.Roles, aws.ToString(r.RoleName))
		}
		return out, nil
	})
}

func sdkFilters(fs []Filter) []ec2types.Filter {
	out := make([]ec2types.Filter, 0, len(fs))
	for _, f := range fs {
		out = append(out, ec2types.Filter{Name: aws.String(f.Name), Values: f.Values})
	}
	return out
}

func tagMap(tags []ec2types.Tag) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	out := make(map[string]string, len(tags))
	for _, t := range tags {
		out[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return out
}
