package checks

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"

// ClassStatus is the status the scheduling decision gives a class, from its
// readiness reads and why its images are not ready ("" when they resolve,
// or are taken to): the predicted status when AWS answered, the fallback
// of scheduling.ReadinessNotServed when the reads were not made (an
// endpoint that does not serve them, inputs known only at apply), and ok
// false when a read failed, which the front end reports instead of
// deciding on missing facts. karpenter_scheduling (data source and
// resource) and karpenter-lint schedule both ask it.
func ClassStatus(r ClassReadiness, imagesNotReady string) (st scheduling.ClassStatus, ok bool) {
	switch r.State {
	case Failed:
		return st, false
	case Read:
		return scheduling.StatusOf(r.Result, imagesNotReady), true
	}
	return scheduling.ReadinessNotServed, true
}
