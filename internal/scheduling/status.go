package scheduling

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
)

// StatusOf is the status readiness predicts for a class (package
// readiness: subnets, security groups, instance profile, capacity
// reservations) with the images' outcome: amisNotReady is "" when the AMI
// selector resolves, else why it does not. The class is Ready when every
// condition is True.
func StatusOf(r readiness.Result, amisNotReady string) ClassStatus {
	st := ClassStatus{Ready: true}
	var why []string
	if amisNotReady != "" {
		why = append(why, "AMIsReady=False: "+amisNotReady)
	}
	for _, c := range r.Conditions {
		if c.Status != "True" {
			why = append(why, fmt.Sprintf("%s=%s, %s: %s", c.Type, c.Status, c.Reason, c.Message))
		}
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
