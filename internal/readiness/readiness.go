// Package readiness predicts, from an EC2NodeClass's selector terms and its
// role or instance profile, what Karpenter would resolve and report in the
// class's status: subnets, security groups, capacity reservations and the
// SubnetsReady, SecurityGroupsReady, InstanceProfileReady and
// CapacityReservationsReady conditions (AMIsReady is package ami's), plus the
// mistakes Karpenter or EC2 would only reveal on the cluster. It also answers
// the NodePool side: the zones of a class's subnets and the instance
// families offered there.
//
// Lookup asks AWS (through a Source, which *awsclient.Cache implements);
// everything else is pure. Callers skip readiness entirely while any input
// (a selector term, the role) is unknown: a partial selector would predict
// the wrong subnets.
package readiness

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Class is what readiness reads from an EC2NodeClass. Exactly one of Role
// and InstanceProfile is set in a valid class; with neither, identity is not
// checked.
type Class struct {
	SubnetTerms              []awsclient.SubnetTerm
	SecurityGroupTerms       []awsclient.SecurityGroupTerm
	CapacityReservationTerms []awsclient.CapacityReservationTerm
	Role                     string
	InstanceProfile          string
}

// Source is the AWS readiness needs; *awsclient.Cache implements it.
type Source interface {
	SelectSubnets(ctx context.Context, terms []awsclient.SubnetTerm) (awsclient.Selection[awsclient.Subnet], error)
	SelectSecurityGroups(ctx context.Context, terms []awsclient.SecurityGroupTerm) (awsclient.SecurityGroupSelection, error)
	SelectCapacityReservations(ctx context.Context, terms []awsclient.CapacityReservationTerm) (awsclient.Selection[awsclient.CapacityReservation], error)
	GetRole(ctx context.Context, name string) (awsclient.Role, error)
	GetInstanceProfile(ctx context.Context, name string) (awsclient.InstanceProfile, error)
}

// Observed is what AWS answered for a class. Role and InstanceProfile are
// nil when the class does not use them.
type Observed struct {
	Subnets              awsclient.Selection[awsclient.Subnet]
	SecurityGroups       awsclient.SecurityGroupSelection
	CapacityReservations awsclient.Selection[awsclient.CapacityReservation]
	Role                 *awsclient.Role
	InstanceProfile      *awsclient.InstanceProfile
}

// RoleName is the IAM role name Karpenter adds to the instance profile it
// makes for spec.role: the last "/"-separated part, so a path prefix (or an
// ARN) names the same role (pkg/providers/instanceprofile ensureRole).
func RoleName(role string) string { return role[strings.LastIndex(role, "/")+1:] }

// Subnet is one entry of status.subnets, with its free addresses.
type Subnet struct {
	ID, Zone, ZoneID     string
	AvailableIPAddresses int32
	VPCID                string
}

// SecurityGroup is one entry of status.securityGroups, with its VPC.
type SecurityGroup struct {
	ID, Name, VPCID string
}

// CapacityReservation is one entry of status.capacityReservations.
type CapacityReservation struct {
	ID, InstanceType, Zone, OwnerID string
	InstanceMatchCriteria           string // open | targeted
	ReservationType                 string // default | capacity-block
	State                           string // active | expiring
	EndTime                         time.Time
	Interruptible                   bool
	// AvailableInstances is how many instances the reservation has left
	// (AvailableInstanceCount): Karpenter launches no more into it.
	AvailableInstances int
}

// Subnets converts a selection into status.subnets, in Karpenter's order
// (most free addresses first, then id: awsclient already sorted them).
func Subnets(sel awsclient.Selection[awsclient.Subnet]) []Subnet {
	out := make([]Subnet, 0, len(sel.All))
	for _, s := range sel.All {
		out = append(out, Subnet{ID: s.ID, Zone: s.Zone, ZoneID: s.ZoneID, AvailableIPAddresses: s.AvailableIPs, VPCID: s.VPCID})
	}
	return out
}

// SecurityGroups converts a selection into status.securityGroups (by id).
func SecurityGroups(sel awsclient.SecurityGroupSelection) []SecurityGroup {
	out := make([]SecurityGroup, 0, len(sel.All))
	for _, g := range sel.All {
		out = append(out, SecurityGroup{ID: g.ID, Name: g.Name, VPCID: g.VPCID})
	}
	return out
}

// capacityBlockExpiry is how long before its end Karpenter marks a capacity
// block "expiring" (v1.CapacityReservationFromEC2).
const capacityBlockExpiry = 40 * time.Minute

// CapacityReservations converts a selection into status.capacityReservations
// as Karpenter does: reservations that ended before now are dropped
// (filterReservations), so are match criteria other than open and targeted;
// a capacity block within 40 minutes of its end is "expiring".
func CapacityReservations(sel awsclient.Selection[awsclient.CapacityReservation], now time.Time) []CapacityReservation {
	out := []CapacityReservation{}
	for _, r := range sel.All {
		if !r.EndDate.IsZero() && !r.EndDate.After(now) {
			continue
		}
		if r.InstanceMatchCriteria != "open" && r.InstanceMatchCriteria != "targeted" {
			continue
		}
		kind := r.ReservationType
		if kind == "" {
			kind = "default"
		}
		state := "active"
		if kind == "capacity-block" && !r.EndDate.IsZero() && !now.Before(r.EndDate.Add(-capacityBlockExpiry)) {
			state = "expiring"
		}
		out = append(out, CapacityReservation{
			ID: r.ID, InstanceType: r.InstanceType, Zone: r.Zone, OwnerID: r.OwnerID,
			InstanceMatchCriteria: r.InstanceMatchCriteria, ReservationType: kind, State: state,
			EndTime: r.EndDate, Interruptible: r.Interruptible, AvailableInstances: int(r.Available),
		})
	}
	return out
}

// Condition types and the reasons Karpenter 1.14 gives them
// (pkg/controllers/nodeclass/*.go; a condition set True carries its type as
// reason, operatorpkg's ConditionSet.SetTrue).
const (
	ConditionSubnetsReady              = "SubnetsReady"
	ConditionSecurityGroupsReady       = "SecurityGroupsReady"
	ConditionInstanceProfileReady      = "InstanceProfileReady"
	ConditionCapacityReservationsReady = "CapacityReservationsReady"

	ReasonSubnetsNotFound        = "SubnetsNotFound"
	ReasonSecurityGroupsNotFound = "SecurityGroupsNotFound"
	// ReasonAwaitingReconciliation is what a condition keeps while its
	// reconciler keeps failing (operatorpkg ConditionSet.SetUnknown).
	ReasonAwaitingReconciliation = "AwaitingReconciliation"

	MessageSubnetsNotFound        = "SubnetSelector did not match any Subnets"
	MessageSecurityGroupsNotFound = "SecurityGroupSelector did not match any SecurityGroups"
	MessageAwaitingReconciliation = "object is awaiting reconciliation"
)

// Condition is one predicted status condition.
type Condition struct {
	Type, Status, Reason, Message string
}

func trueCondition(t string) Condition { return Condition{Type: t, Status: "True", Reason: t} }

// Options tune Evaluate.
type Options struct {
	// Now decides which capacity reservations have ended.
	Now time.Time
	// CapacityReservations adds CapacityReservationsReady: Karpenter has
	// the condition when its ReservedCapacity feature gate is on (capacity
	// reservations exist from 1.3; the 1.14 chart enables the gate by
	// default).
	CapacityReservations bool
	// LowFreeAddresses is the free-address count under which a zone's
	// subnet is warned about; 0 means DefaultLowFreeAddresses.
	LowFreeAddresses int32
	// Unknown... leave a check for apply: the plan does not know the
	// security group terms (nor then the subnet/group network checks), the
	// capacity reservation terms, or the role and instance profile.
	UnknownSecurityGroups, UnknownCapacityReservations, UnknownIdentity bool
	// NotRead maps a condition type to the readiness read AWS denied for it
	// ("iam:GetRole"): the condition is Unknown (NotPredicted) and the
	// checks fed by the read are skipped.
	NotRead map[string]string
}

// DefaultLowFreeAddresses: with the VPC CNI's default warm pool a node takes
// its primary address plus a spare ENI's worth (10 on an m5.large, 30 on an
// m5.4xlarge), so a subnet with fewer than 32 free addresses fills up after
// one or two nodes.
const DefaultLowFreeAddresses = 32

// Conditions predicts the four conditions readiness owns, in the order of
// Karpenter's condition set; CapacityReservationsReady only with
// opt.CapacityReservations.
func Conditions(c Class, o Observed, opt Options) []Condition {
	out := []Condition{trueCondition(ConditionSubnetsReady), trueCondition(ConditionSecurityGroupsReady),
		trueCondition(ConditionInstanceProfileReady)}
	if len(o.Subnets.All) == 0 {
		out[0] = Condition{Type: ConditionSubnetsReady, Status: "False", Reason: ReasonSubnetsNotFound, Message: MessageSubnetsNotFound}
	}
	if len(o.SecurityGroups.All) == 0 && len(c.SecurityGroupTerms) > 0 {
		out[1] = Condition{Type: ConditionSecurityGroupsReady, Status: "False", Reason: ReasonSecurityGroupsNotFound, Message: MessageSecurityGroupsNotFound}
	}
	// A missing role makes AddRoleToInstanceProfile fail on every
	// reconcile, so the condition is never set; spec.instanceProfile is
	// taken as it is, without asking IAM.
	if c.Role != "" && o.Role != nil && !o.Role.Found {
		out[2] = Condition{Type: ConditionInstanceProfileReady, Status: "Unknown", Reason: ReasonAwaitingReconciliation, Message: MessageAwaitingReconciliation}
	}
	if opt.CapacityReservations {
		out = append(out, trueCondition(ConditionCapacityReservationsReady))
	}
	for i, cond := range out {
		if action, ok := opt.NotRead[cond.Type]; ok {
			out[i] = notPredicted(cond.Type, action)
		}
	}
	return out
}

// Zones returns the zones of subnets, sorted and without repeats.
func Zones(subnets []Subnet) []string {
	set := map[string]bool{}
	for _, s := range subnets {
		set[s.Zone] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// Family is the instance family of an instance type ("p4d" of
// "p4d.24xlarge").
func Family(instanceType string) string {
	f, _, _ := strings.Cut(instanceType, ".")
	return f
}

// OfferedFamilies returns the families with at least one instance type
// offered in any of zones, according to offerings (zone -> instance types,
// awsclient.Cache.OfferingsByZone).
func OfferedFamilies(zones []string, offerings map[string][]string) map[string]bool {
	out := map[string]bool{}
	for _, z := range zones {
		for _, it := range offerings[z] {
			out[Family(it)] = true
		}
	}
	return out
}

// FamiliesNotOffered returns, in the order given, the families offered in
// none of zones.
func FamiliesNotOffered(families, zones []string, offerings map[string][]string) []string {
	offered := OfferedFamilies(zones, offerings)
	var out []string
	for _, f := range families {
		if !offered[f] {
			out = append(out, f)
		}
	}
	return out
}

// Result is everything Evaluate predicts for a class.
type Result struct {
	Subnets              []Subnet
	SecurityGroups       []SecurityGroup
	CapacityReservations []CapacityReservation
	Conditions           []Condition
	Findings             rules.Findings
}

// describeTerm renders a selector term for diagnostics as a flow mapping
// of its fields, which reads alike in a manifest and in HCL: {id: "sg-1"},
// {tags: {"k": "v"}}.
func describeTerm(id, name string, tags map[string]string) string {
	var parts []string
	if id != "" {
		parts = append(parts, "id: "+strconv.Quote(id))
	}
	if name != "" {
		parts = append(parts, "name: "+strconv.Quote(name))
	}
	if len(tags) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			kv = append(kv, strconv.Quote(k)+": "+strconv.Quote(tags[k]))
		}
		parts = append(parts, "tags: {"+strings.Join(kv, ", ")+"}")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func quoteAll(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
