package scheduling

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// ImagesNotReady is StatusOf's amisNotReady for a resolution of the
// class's AMI selector terms: "" when it resolves images, else why not
// (Karpenter's AMIsReady=False): the first error of the resolution, or
// the message Karpenter sets when nothing matches.
func ImagesNotReady(res ami.Result) string {
	for _, f := range res.Findings {
		if f.Severity == rules.Error {
			return f.Detail
		}
	}
	if len(res.AMIs) == 0 {
		return "AMISelector did not match any AMIs"
	}
	return ""
}

// ReadinessNotServed is the status of a class whose readiness reads the
// endpoint does not serve (no ec2:DescribeSubnets, as on some emulators):
// said once for the resource, the data source and karpenter-lint schedule.
var ReadinessNotServed = ClassStatus{Unknown: "the AWS endpoint does not serve the readiness reads " +
	"(ec2:DescribeSubnets), so the class's subnets, and the zones its NodePools launch in, are not known"}

// StatusOf is the status readiness predicts for a class (package
// readiness: subnets, security groups, instance profile, capacity
// reservations) with the images' outcome: amisNotReady is "" when the AMI
// selector resolves, else why it does not. The class is Ready when every
// condition is True or was not predicted because AWS denied its read;
// its status is Unknown when the denied read is the subnets' or the
// capacity reservations', which the decision needs.
func StatusOf(r readiness.Result, amisNotReady string) ClassStatus {
	st := ClassStatus{Ready: true}
	var why []string
	if amisNotReady != "" {
		why = append(why, "AMIsReady=False: "+amisNotReady)
	}
	var unknown []string
	for _, c := range r.Conditions {
		switch {
		case c.Status == "True":
		case c.Reason == readiness.ReasonNotPredicted && (c.Type == readiness.ConditionSubnetsReady ||
			c.Type == readiness.ConditionCapacityReservationsReady):
			// A denied read: the zones, or the reservations, are not
			// known, and nothing says Karpenter would fail.
			unknown = append(unknown, c.Type+" "+c.Message)
		case c.Reason == readiness.ReasonNotPredicted:
			// The security groups or the instance profile: nothing says
			// the class would not be Ready, and the decision needs
			// neither.
		default:
			why = append(why, fmt.Sprintf("%s=%s, %s: %s", c.Type, c.Status, c.Reason, c.Message))
		}
	}
	if len(unknown) > 0 {
		return ClassStatus{Unknown: strings.Join(unknown, "; ")}
	}
	if len(why) > 0 {
		st.Ready, st.NotReady = false, strings.Join(why, "; ")
	}
	for _, s := range r.Subnets {
		st.Subnets = append(st.Subnets, Subnet{ID: s.ID, Zone: s.Zone, ZoneID: s.ZoneID})
	}
	for _, c := range r.CapacityReservations {
		st.CapacityReservations = append(st.CapacityReservations, Reservation{ID: c.ID, InstanceType: c.InstanceType, Zone: c.Zone,
			Type: c.ReservationType, Interruptible: c.Interruptible, Available: c.AvailableInstances, State: c.State})
	}
	return st
}
