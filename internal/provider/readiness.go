package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

var zonesType = types.MapType{ElemType: types.StringType}

// conditionAMIsReady is Karpenter's condition for the images, which the AMI
// resolution predicts (a selector that resolves nothing fails the plan).
const conditionAMIsReady = "AMIsReady"

// classReadiness is what the readiness reads predict for one class
// (checks.ReadClass, which validate_manifest and karpenter-lint read with
// too); the provider reports it and turns it into the class's computed
// status attributes.
type classReadiness struct{ checks.ClassReadiness }

// startClassReadiness starts the readiness reads of c in the background
// (they run while the images resolve) and returns the function that waits
// for them. The Cache answers each distinct query once per provider
// process, so classes sharing selectors share the calls.
func startClassReadiness(ctx context.Context, pd *ProviderData, c nodeclass.Class) func() classReadiness {
	var out classReadiness
	done := make(chan struct{})
	go func() {
		defer close(done)
		out = classReadiness{checks.ReadClass(ctx, readinessSource(pd), c, pd.Karpenter)}
	}()
	return func() classReadiness {
		<-done
		return out
	}
}

// readinessSource is what the readiness reads ask: nil offline (terraform
// validate, or no AWS setup), where they are skipped, never failed.
func readinessSource(pd *ProviderData) readiness.Source {
	if pd.AWS != nil && pd.AWS.Clients().Configured() {
		return pd.AWS
	}
	return nil
}

// report adds the findings, or the AWS failure, to diags: a denied
// readiness read is a warning (an error with strict_readiness).
func (r classReadiness) report(pd *ProviderData, diags *diag.Diagnostics) {
	if r.State == checks.Failed {
		addAWSFailure(diags, tfPath(path.Empty(), r.FailedAt), r.Failed,
			"The EC2NodeClass readiness checks read subnets, security groups, capacity reservations and the node role; "+
				"the provider's IAM policy in the index page lists the permissions they need.")
		return
	}
	for _, d := range r.Denied {
		appendFindings(diags, path.Empty(), rules.Findings{pd.readDenied(d.Action, d.Err)})
	}
	appendFindings(diags, path.Empty(), r.Findings)
}

// readinessValues are the class's computed readiness attributes: status,
// one line per entry (subnet, group, reservation, condition).
type readinessValues struct {
	subnets, securityGroups, capacityReservations, conditions, zones types.Map
}

// values converts the prediction into attribute values; amisKnown says
// whether the images (AMIsReady) were resolved at this plan.
func (r classReadiness) values(amisKnown bool) (readinessValues, diag.Diagnostics) {
	switch r.State {
	case checks.Skipped:
		null := types.MapNull(types.StringType)
		return readinessValues{null, null, null, null, null}, nil
	case checks.Deferred:
		unknown := types.MapUnknown(types.StringType)
		return readinessValues{unknown, unknown, unknown, unknown, unknown}, nil
	}
	var diags diag.Diagnostics
	lines := func(elems map[string]attr.Value) types.Map {
		m, d := types.MapValue(types.StringType, elems)
		diags.Append(d...)
		return m
	}
	res := r.Result
	var out readinessValues
	subnets, zones := map[string]attr.Value{}, map[string]attr.Value{}
	for _, s := range res.Subnets {
		subnets[s.ID] = types.StringValue(subnetLine(s))
		zones[s.Zone] = types.StringValue(s.ZoneID)
	}
	out.subnets, out.zones = lines(subnets), lines(zones)
	// A denied read leaves its values null, as a skipped check does: the
	// pools then skip their zone checks.
	if r.WasDenied(readiness.ConditionSubnetsReady) {
		out.subnets, out.zones = types.MapNull(types.StringType), types.MapNull(types.StringType)
	}

	out.securityGroups = types.MapUnknown(types.StringType)
	if r.GroupsKnown {
		groups := map[string]attr.Value{}
		for _, g := range res.SecurityGroups {
			groups[g.ID] = types.StringValue(g.Name + " (" + g.VPCID + ")")
		}
		out.securityGroups = lines(groups)
		if r.WasDenied(readiness.ConditionSecurityGroupsReady) {
			out.securityGroups = types.MapNull(types.StringType)
		}
	}
	out.capacityReservations = types.MapUnknown(types.StringType)
	switch {
	case r.ReservationsKnown && len(r.Class.CapacityReservationTerms) == 0:
		// Nothing to select: null, which a plan does not print, rather
		// than an empty map on every class that uses no reservation.
		out.capacityReservations = types.MapNull(types.StringType)
	case r.ReservationsKnown:
		reservations := map[string]attr.Value{}
		for _, cr := range res.CapacityReservations {
			reservations[cr.ID] = types.StringValue(reservationLine(cr))
		}
		out.capacityReservations = lines(reservations)
		if r.WasDenied(readiness.ConditionCapacityReservationsReady) {
			out.capacityReservations = types.MapNull(types.StringType)
		}
	}

	// A condition whose inputs are unknown keeps its type and waits for the
	// rest.
	conds := append([]readiness.Condition{{Type: conditionAMIsReady, Status: "True", Reason: conditionAMIsReady}}, res.Conditions...)
	conditions := map[string]attr.Value{}
	for _, cond := range conds {
		known := true
		switch cond.Type {
		case conditionAMIsReady:
			known = amisKnown
		case readiness.ConditionSecurityGroupsReady:
			known = r.GroupsKnown
		case readiness.ConditionInstanceProfileReady:
			known = r.IdentityKnown
		}
		conditions[cond.Type] = types.StringUnknown()
		if known {
			conditions[cond.Type] = types.StringValue(conditionLine(cond))
		}
	}
	out.conditions = lines(conditions)
	return out, diags
}

// subnetLine is a subnet's status line, "<zone> (<zone id>), <n> free";
// the part before the comma is its place, which keepRecordedSubnets
// compares.
func subnetLine(s readiness.Subnet) string {
	return fmt.Sprintf("%s (%s), %d free", s.Zone, s.ZoneID, s.AvailableIPAddresses)
}

// reservationLine is a capacity reservation's status line.
func reservationLine(cr readiness.CapacityReservation) string {
	state := cr.State
	if !cr.EndTime.IsZero() {
		state += " until " + cr.EndTime.UTC().Format(time.RFC3339)
	}
	if cr.Interruptible {
		state += ", interruptible"
	}
	return fmt.Sprintf("%s in %s, %s %s, %s, owner %s", cr.InstanceType, cr.Zone, cr.InstanceMatchCriteria, cr.ReservationType, state, cr.OwnerID)
}

// conditionLine is a condition's status line: "True", or "<status>:
// <reason>" (the message is in the plan's diagnostics).
func conditionLine(c readiness.Condition) string {
	if c.Status == "True" {
		return "True"
	}
	return c.Status + ": " + c.Reason
}

// keepRecordedSubnets returns the prior state's subnets when the plan
// selects the same subnets in the same zones: free address counts change
// with every pod a busy cluster starts, and a plan that showed them
// changing would update the class on every run. A new or dropped subnet
// shows the fresh counts.
func keepRecordedSubnets(planned, prior types.Map) types.Map {
	if planned.IsNull() || planned.IsUnknown() || prior.IsNull() || prior.IsUnknown() {
		return planned
	}
	place := func(v attr.Value) (string, bool) {
		s, ok := knownString(v)
		where, _, found := strings.Cut(s, ", ")
		return where, ok && found
	}
	p, q := planned.Elements(), prior.Elements()
	if len(p) != len(q) {
		return planned
	}
	for id, v := range p {
		a, ok1 := place(v)
		b, ok2 := place(q[id])
		if !ok1 || !ok2 || a != b {
			return planned
		}
	}
	return prior
}

// classZones reads node_class.zones (zone -> zone id) back into subnets
// for the pool's cross-checks; ok is false when the zones are null
// (a class managed elsewhere, or checks skipped) or not known yet.
func classZones(v attr.Value) (subnets []readiness.Subnet, ok bool) {
	m, isMap := v.(types.Map)
	if !isMap || m.IsNull() || m.IsUnknown() {
		return nil, false
	}
	elems := m.Elements()
	for _, zone := range slices.Sorted(maps.Keys(elems)) {
		id, known := knownString(elems[zone])
		if !known && elems[zone].IsUnknown() {
			return nil, false
		}
		subnets = append(subnets, readiness.Subnet{Zone: zone, ZoneID: id})
	}
	return subnets, true
}
