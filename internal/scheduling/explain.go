package scheduling

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	scheduler "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/resources"
)

// poolFacts is what the advice reads of a pool Karpenter schedules with.
type poolFacts struct {
	pool *v1.NodePool
	its  []*cloudprovider.InstanceType
	// admitted are the instance types the pool's requirements admit.
	admitted []*cloudprovider.InstanceType
	class    string
	zones    []string // of the class's subnets
}

var unknownLabelRE = regexp.MustCompile(`label "([^"]+)" does not have known values`)

// advise says, for each pool Karpenter schedules with, what keeps the pod
// off it and what to change. It judges the pod alone on a new node, with
// the pool's DaemonSet overhead; what only the other pods explain
// (topology, limits already used) keeps Karpenter's own message.
func advise(pod *corev1.Pod, volumes []kscheduling.Requirements, pools []poolFacts, daemons []*corev1.Pod) []string {
	var out []string
	podReqs := kscheduling.NewStrictPodRequirements(pod)
	requests := resources.RequestsForPods(pod)
	for _, pf := range pools {
		if a := advisePool(pod, podReqs, requests, volumes, pf, daemons); a != "" {
			out = append(out, fmt.Sprintf("NodePool %q: %s", pf.pool.Name, a))
		}
	}
	return out
}

func advisePool(pod *corev1.Pod, podReqs kscheduling.Requirements, requests corev1.ResourceList, volumes []kscheduling.Requirements,
	pf poolFacts, daemons []*corev1.Pod) string {
	np := pf.pool
	for _, t := range np.Spec.Template.Spec.Taints {
		if kscheduling.Taints([]corev1.Taint{t}).ToleratesPod(pod) != nil {
			return fmt.Sprintf("its nodes carry the taint %s, which the pod does not tolerate: add to the pod template "+
				"`tolerations: [{key: %q, operator: Exists, effect: %s}]` (or the exact value with operator Equal), or take the taint off the NodePool "+
				"if its nodes are meant for these pods", taintString(t), t.Key, t.Effect)
		}
	}
	nct := scheduler.NewNodeClaimTemplate(np)
	if err := nct.Requirements.Compatible(podReqs, kscheduling.AllowUndefinedWellKnownLabels); err != nil {
		if m := unknownLabelRE.FindStringSubmatch(err.Error()); m != nil {
			v := podReqs.Get(m[1])
			return fmt.Sprintf("the pod requires the label %s (%s), which the NodePool neither sets nor lets vary, so its nodes would not have it: "+
				"add it to the NodePool's spec.template.metadata.labels (%s: %s) or as a requirement (key: %s, operator: In, values: [%s]), "+
				"or drop it from the pod's nodeSelector or required node affinity", m[1], v, m[1], first(v), m[1], first(v))
		}
		for _, key := range podReqs.Keys().UnsortedList() {
			if nct.Requirements.Has(key) && !nct.Requirements.Get(key).HasIntersection(podReqs.Get(key)) {
				return fmt.Sprintf("the pod requires %s, the NodePool allows %s: widen the NodePool's requirement on %s or change the pod's selector",
					podReqs.Get(key), nct.Requirements.Get(key), key)
			}
		}
		return "its requirements and the pod's exclude each other: " + err.Error()
	}
	if z := podReqs.Get(corev1.LabelTopologyZone); z.Operator() == corev1.NodeSelectorOpIn && !slices.ContainsFunc(pf.zones, z.Has) {
		return fmt.Sprintf("the pod requires %s, but the subnets of EC2NodeClass %q are in %s: add a subnet in that zone to its "+
			"subnetSelectorTerms, or change the pod's zone", z, pf.class, strings.Join(pf.zones, ", "))
	}
	if len(volumes) > 0 && !slices.ContainsFunc(volumes, func(r kscheduling.Requirements) bool {
		vz := r.Get(corev1.LabelTopologyZone)
		return r == nil || vz.Operator() != corev1.NodeSelectorOpIn || slices.ContainsFunc(pf.zones, vz.Has)
	}) {
		return fmt.Sprintf("the pod's volumes are in %s, where EC2NodeClass %q has no subnet (its subnets are in %s): add a subnet in "+
			"that zone, or move the volume", volumeZones(volumes), pf.class, strings.Join(pf.zones, ", "))
	}
	combined := kscheduling.NewRequirements(nct.Requirements.Values()...)
	combined.Add(podReqs.Values()...)
	var candidates []*cloudprovider.InstanceType
	for _, it := range pf.admitted {
		if it.Requirements.Intersects(combined) == nil && it.Offerings.Available().HasCompatible(combined) {
			candidates = append(candidates, it)
		}
	}
	if len(candidates) == 0 {
		return fmt.Sprintf("no instance type the NodePool admits has an offering (zone, capacity type, price) that meets %s: "+
			"widen the NodePool's requirements or the pod's", combined)
	}
	daemon := daemonOverhead(np, nct, daemons)
	if msg := resourceAdvice(requests, daemon, candidates); msg != "" {
		return msg
	}
	if limits := np.Spec.Limits; len(limits) > 0 {
		var smallest *cloudprovider.InstanceType
		for _, it := range candidates {
			if fitsWith(requests, daemon, it) && (smallest == nil || it.Capacity.Cpu().Cmp(*smallest.Capacity.Cpu()) < 0) {
				smallest = it
			}
		}
		for name, limit := range limits {
			if smallest != nil && resources.Cmp(smallest.Capacity[name], limit) > 0 {
				c := smallest.Capacity[name]
				return fmt.Sprintf("its limits hold %s %s, less than one node of the smallest instance type that fits the pod (%s, %s %s; "+
					"Karpenter counts a NodeClaim's largest possible type against the limits): raise spec.limits.%s to at least %s", name, limit.String(),
					smallest.Name, name, c.String(), name, c.String())
			}
		}
	}
	return ""
}

// daemonOverhead is the requests of the DaemonSet pods that would run on
// the pool's nodes (they tolerate its taints and its requirements admit
// them), the least a node of the pool gives them.
func daemonOverhead(np *v1.NodePool, nct *scheduler.NodeClaimTemplate, daemons []*corev1.Pod) corev1.ResourceList {
	var on []*corev1.Pod
	for _, d := range daemons {
		if kscheduling.Taints(np.Spec.Template.Spec.Taints).ToleratesPod(d) == nil &&
			nct.Requirements.IsCompatible(kscheduling.NewStrictPodRequirements(d), kscheduling.AllowUndefinedWellKnownLabels) {
			on = append(on, d)
		}
	}
	if len(on) == 0 {
		return corev1.ResourceList{}
	}
	out := resources.RequestsForPods(on...)
	delete(out, corev1.ResourcePods)
	return out
}

func fitsWith(requests, daemon corev1.ResourceList, it *cloudprovider.InstanceType) bool {
	return resources.Fits(resources.Merge(requests, daemon), it.Allocatable())
}

// resourceAdvice names the request no candidate can hold, with the largest
// allocatable one offers.
func resourceAdvice(requests, daemon corev1.ResourceList, candidates []*cloudprovider.InstanceType) string {
	for _, it := range candidates {
		if fitsWith(requests, daemon, it) {
			return ""
		}
	}
	total := resources.Merge(requests, daemon)
	for _, name := range sortedResourceNames(requests) {
		want := total[name]
		var best *cloudprovider.InstanceType
		var bestQ resource.Quantity
		for _, it := range candidates {
			if q, ok := it.Allocatable()[name]; ok && (best == nil || q.Cmp(bestQ) > 0) {
				best, bestQ = it, q
			}
		}
		if best != nil && bestQ.Cmp(want) >= 0 {
			continue
		}
		req := requests[name]
		withDaemons := ""
		if d, ok := daemon[name]; ok && !d.IsZero() {
			withDaemons = fmt.Sprintf(" plus %s for the DaemonSet pods that run on every node", d.String())
		}
		if best == nil || bestQ.IsZero() {
			return fmt.Sprintf("the pod requests %s %s%s, and no instance type the NodePool admits has any: admit instance types that have it "+
				"(for GPUs, e.g. a requirement on karpenter.k8s.aws/instance-gpu-manufacturer; for Neuron, karpenter.k8s.aws/instance-accelerator-name)",
				name, req.String(), withDaemons)
		}
		return fmt.Sprintf("the pod requests %s %s%s; the largest allocatable %s of an instance type the NodePool admits is %s (%s, after "+
			"kube-reserved, system-reserved and the eviction threshold): lower the request, or admit larger instance types", name, req.String(),
			withDaemons, name, readable(name, bestQ), best.Name)
	}
	return "no single instance type the NodePool admits holds all of the pod's requests together with its DaemonSet pods: lower the requests, or admit larger instance types"
}

func sortedResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		if n != corev1.ResourcePods {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func volumeZones(volumes []kscheduling.Requirements) string {
	var zones []string
	for _, r := range volumes {
		if r != nil {
			zones = append(zones, r.Get(corev1.LabelTopologyZone).Values()...)
		}
	}
	slices.Sort(zones)
	return strings.Join(slices.Compact(zones), ", ")
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

func first(r *kscheduling.Requirement) string {
	if v := r.Values(); len(v) > 0 {
		slices.Sort(v)
		return v[0]
	}
	return "<value>"
}

// adviseIgnored says what to change for a pod Karpenter will not consider
// or whose volumes it cannot read.
func adviseIgnored(msg string) string {
	switch {
	case strings.Contains(msg, "configured to not run on a Karpenter provisioned node"):
		return "The pod requires that karpenter.sh/nodepool does not exist: it is meant for capacity Karpenter does not manage (a managed node group, Fargate), so no NodePool will take it."
	case strings.Contains(msg, "unbound pvc must define a storage class"):
		return "Give the claim a storageClassName, or add to workloads the StorageClass annotated storageclass.kubernetes.io/is-default-class: \"true\" (the API server names the default class in claims that name none)."
	case strings.Contains(msg, "failed to get storage class"), strings.Contains(msg, "getting storage class"):
		return "Add the StorageClass to workloads (if it exists in the cluster), or fix the claim's storageClassName."
	case strings.Contains(msg, "getting persistent volume claim"):
		return "Add the PersistentVolumeClaim to workloads (if it exists in the cluster), or fix the pod's claimName."
	case strings.Contains(msg, "getting persistent volume"):
		return "Add the PersistentVolume the claim is bound to (spec.volumeName) to workloads."
	case strings.Contains(msg, "does not contain annotation"):
		return "A claim with spec.volumeName counts as bound only with the annotation pv.kubernetes.io/bind-completed (as `kubectl get -o yaml` shows a bound claim): add it, or drop volumeName."
	case strings.Contains(msg, "immediate volume binding mode must be bound"):
		return "A StorageClass with volumeBindingMode Immediate provisions the volume before any node exists: use WaitForFirstConsumer, or bind the claim to a PersistentVolume."
	case strings.Contains(msg, "no dynamic nodepools found"):
		return "No NodePool is Ready to schedule with (see the nodepool-not-scheduling warnings)."
	case strings.Contains(msg, "PriorityClass"):
		return ""
	}
	return ""
}

// readable is a quantity as the rest of the messages print it.
func readable(name corev1.ResourceName, q resource.Quantity) string {
	r := capacity.Readable(name, q)
	return r.String()
}
