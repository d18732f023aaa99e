package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	scheduler "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Decision is Karpenter's provisioning decision for the input.
type Decision struct {
	// Workloads are the objects that make pods, in input order.
	Workloads []WorkloadResult
	// NodeClaims are the NodeClaims Karpenter would create, in the
	// canonical order (see the package documentation), with what
	// Karpenter leaves to chance said as chance: a NodeClaim Karpenter
	// puts in one of several zones the inputs do not tell apart lists
	// them all, with the instance types it could have in any of them.
	NodeClaims []NodeClaim
	// Drawn are the NodeClaims as Karpenter's scheduler drew them on this
	// run (canonical order, zones as it picked them): what its
	// provisioner compares with.
	Drawn []NodeClaim
	// ExistingNodes are the nodes and NodeClaims of the cluster state that
	// take pods, by name.
	ExistingNodes []ExistingNode
	// NodePools are the pools of the input, in input order, with why
	// Karpenter would leave one out.
	NodePools []PoolResult
	// Order are the NodePools Karpenter schedules with, in its order,
	// with what each took.
	Order []PoolOrder
	// Skipped are the objects of the workloads input of kinds the decision
	// does not read ("<namespace>/<kind>/<name>", in input order).
	Skipped []string
	// Findings are the problems, in input order.
	Findings []Finding
	// Cost is what the NodeClaims cost per hour, per pool and in total.
	Cost Cost

	// unpredicted are the NodePools left out because their EC2NodeClass's
	// status could not be predicted: they might take pods the decision
	// finds unschedulable, which are then warnings.
	unpredicted []string
}

// WorkloadResult is where a workload's pods land.
type WorkloadResult struct {
	Key      string
	Input    int
	Position Position
	Pods     int
	// NodePools counts the pods each pool would take on new NodeClaims.
	NodePools map[string]int
	// ExistingNodes counts the pods that go to nodes (or NodeClaims) of the
	// cluster state, by node name.
	ExistingNodes map[string]int
	// Unschedulable counts the pods Karpenter would not place (or never
	// sees); Reason is Karpenter's message for the first of them.
	Unschedulable int
	Reason        string
	// Reasons counts the unschedulable pods per message.
	Reasons map[string]int
	// Advice says what to change, for the first pod Karpenter would not
	// place: per NodePool, what keeps it off and how to fix that.
	Advice []string
	// Allowed is set when the workload is in AllowUnschedulable.
	Allowed bool
}

// NodeClaim is one NodeClaim Karpenter would create.
type NodeClaim struct {
	NodePool string
	// InstanceTypes are its instance-type options, cheapest first, at
	// most 600 (Karpenter's MaxInstanceTypes).
	InstanceTypes []string
	// Pods are "<namespace>/<kind>/<name>/<index>".
	Pods []string
	// Zones, CapacityTypes and Architectures are where and how it can
	// launch: the values of the offerings of its instance types that
	// satisfy its requirements.
	Zones, CapacityTypes, Architectures []string
	// Price is what Karpenter would pay for it per hour (Price.of).
	Price Price
}

// ExistingNode is a node (or a launched NodeClaim not yet a node) of the
// cluster state that takes pods.
type ExistingNode struct {
	// Name is the node's name, or the NodeClaim's before it registers.
	Name, NodePool string
	// Pods are "<namespace>/<kind>/<name>/<index>".
	Pods []string
}

// PoolResult is one NodePool of the input.
type PoolResult struct {
	Name string
	// Input is the element of its list, Position where it starts there.
	Input    int
	Position Position
	// Skipped says why Karpenter would not schedule with it ("" when it
	// does).
	Skipped string
}

// Finding is a rule finding with where it is in the input: Path is the
// element of the input list ("workloads[2]"), List and Input the same
// (Input is -1 for the whole list), Position the object in the element.
type Finding struct {
	rules.Finding
	List     string
	Input    int
	Position Position
	// Object is the object's key, "<namespace>/<kind>/<name>" (a
	// cluster-scoped kind has no namespace), or "" for a whole document.
	Object string
}

// podOutcome is one pod's fate.
type podOutcome struct {
	workload *Workload
	err      error
	ignored  bool
}

func (p *Parsed) documentFinding(list string, e inputError) Finding {
	what := "the document"
	if e.what != "" {
		what = e.what
	}
	return Finding{
		Finding: rules.New(ruleDocument, p.element(list, e.input), "%s (%s): %s. Nothing of it is part of the decision.",
			what, p.describe(list, e.input, e.pos), e.err),
		List: list, Input: e.input, Position: e.pos, Object: e.key,
	}
}

func (p *Parsed) poolFinding(np nodePool, reason string) Finding {
	return Finding{
		Finding: rules.New(rulePoolSkipped, p.element(p.poolList, np.input),
			"NodePool %q (%s): Karpenter leaves it out of scheduling: %s. Pods that only it could take are reported unschedulable.",
			np.pool.Name, p.describe(p.poolList, np.input, np.pos), reason),
		List: p.poolList, Input: np.input, Position: np.pos, Object: "/NodePool/" + np.pool.Name,
	}
}

// finish turns the scheduler's results into the decision.
func (d *Decision) finish(p *Parsed, outcome map[*corev1.Pod]*podOutcome, results scheduler.Results,
	advice func(*corev1.Pod, *podOutcome) []string, symmetric [][]string, chance *chance) {
	claims := results.NewNodeClaims
	// Solve places deep copies of the pods: match them by UID.
	poolOf := map[types.UID]string{}
	for _, nc := range claims {
		for _, pod := range nc.Pods {
			poolOf[pod.UID] = nc.NodePoolName
		}
	}
	nodeOf := map[types.UID]string{}
	for _, n := range results.ExistingNodes {
		for _, pod := range n.Pods {
			nodeOf[pod.UID] = existingName(n)
		}
	}
	podKey := map[types.UID]string{}
	for _, w := range p.world.workloads {
		r := WorkloadResult{Key: w.Key, Input: w.Input, Position: w.Position, Pods: len(w.Pods), NodePools: map[string]int{}, Allowed: p.allow[w.Key]}
		var first *podOutcome
		for i, pod := range w.Pods {
			podKey[pod.UID] = w.Key + "/" + strconv.Itoa(i)
			o := outcome[pod]
			if pool, ok := poolOf[pod.UID]; ok && o.err == nil {
				r.NodePools[pool]++
				continue
			}
			if node, ok := nodeOf[pod.UID]; ok && o.err == nil {
				if r.ExistingNodes == nil {
					r.ExistingNodes = map[string]int{}
				}
				r.ExistingNodes[node]++
				continue
			}
			r.Unschedulable++
			if o.err == nil {
				o.err = fmt.Errorf("the scheduler returned no decision for it")
			}
			if r.Reasons == nil {
				r.Reasons = map[string]int{}
			}
			r.Reasons[o.err.Error()]++
			if first == nil {
				first = o
				r.Reason = o.err.Error()
				r.Advice = advice(pod, o)
			}
		}
		d.Workloads = append(d.Workloads, r)
		if r.Unschedulable > 0 {
			f := Finding{Finding: rules.New(ruleUnschedulable, p.element(ListWorkloads, w.Input), "%s",
				unschedulableDetail(r, w, p.describe(ListWorkloads, w.Input, w.Position), p.allowIn, first, d.unpredicted)),
				List: ListWorkloads, Input: w.Input, Position: w.Position, Object: w.Key}
			if r.Allowed || len(d.unpredicted) > 0 {
				f.Finding = f.AsWarning()
			}
			d.Findings = append(d.Findings, f)
		}
	}
	for _, nc := range claims {
		drawn := nodeClaimOf(nc, podKey)
		d.Drawn = append(d.Drawn, drawn)
		d.NodeClaims = append(d.NodeClaims, chance.widen(nc, drawn))
	}
	for _, n := range results.ExistingNodes {
		if len(n.Pods) == 0 {
			continue
		}
		e := ExistingNode{Name: existingName(n), NodePool: n.Labels()[v1.NodePoolLabelKey]}
		for _, pod := range n.Pods {
			e.Pods = append(e.Pods, podKey[pod.UID])
		}
		d.ExistingNodes = append(d.ExistingNodes, e)
	}
	distinct := map[string]bool{}
	for _, w := range p.world.workloads {
		distinct[w.Key] = w.distinct
	}
	start := numberExisting(d.ExistingNodes, distinct)
	d.Drawn = canonicalise(d.Drawn, distinct, symmetric, start)
	d.NodeClaims = canonicalise(d.NodeClaims, distinct, symmetric, start)
}

func unschedulableDetail(r WorkloadResult, w *Workload, where, allowIn string, o *podOutcome, unpredicted []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d of its %d pods would not be placed by Karpenter. ", w.Key, where, r.Unschedulable, r.Pods)
	if o.ignored {
		b.WriteString("Karpenter ignores them (Provisioner.Validate), logging: ")
	} else {
		b.WriteString("Karpenter reports: ")
	}
	b.WriteString("“" + r.Reason + "”.")
	switch len(r.Advice) {
	case 0:
	case 1:
		b.WriteString("\n\nWhat to change: " + r.Advice[0])
		if !strings.HasSuffix(r.Advice[0], ".") {
			b.WriteString(".")
		}
	default:
		b.WriteString("\n\nWhat to change, for each NodePool that could take them:")
		for _, a := range r.Advice {
			b.WriteString("\n- " + a + ".")
		}
	}
	if r.Allowed {
		b.WriteString("\n\nAcknowledged in " + allowIn + ".")
	}
	if len(unpredicted) > 0 {
		fmt.Fprintf(&b, "\n\nA warning, not an error: NodePools are left out of the decision because the status of their "+
			"EC2NodeClass could not be predicted (%s), and they might take these pods.", quoteAll(unpredicted))
	}
	return b.String()
}

// nodeClaimOf reads a scheduler NodeClaim: where and how it can launch is
// the offerings of its instance types that its requirements admit.
func nodeClaimOf(nc *scheduler.NodeClaim, podKey map[types.UID]string) NodeClaim {
	out := launchOptions(nc.NodePoolName, nc.InstanceTypeOptions, nc.Requirements)
	out.Price = priceOf(nc)
	for _, pod := range nc.Pods {
		out.Pods = append(out.Pods, podKey[pod.UID])
	}
	return out
}

// launchOptions is a NodeClaim of pool with instance types its, without
// pods: the zones, capacity types and architectures of their available
// offerings that reqs admit.
func launchOptions(pool string, its []*cloudprovider.InstanceType, reqs kscheduling.Requirements) NodeClaim {
	out := NodeClaim{NodePool: pool}
	zones, capacityTypes, arches := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, it := range its {
		out.InstanceTypes = append(out.InstanceTypes, it.Name)
		for _, o := range it.Offerings.Available() {
			if !reqs.IsCompatible(o.Requirements, kscheduling.AllowUndefinedWellKnownLabels) {
				continue
			}
			zones[o.Requirements.Get(corev1.LabelTopologyZone).Any()] = true
			capacityTypes[o.Requirements.Get(v1.CapacityTypeLabelKey).Any()] = true
			for _, a := range it.Requirements.Get(corev1.LabelArchStable).Values() {
				if reqs.Get(corev1.LabelArchStable).Has(a) {
					arches[a] = true
				}
			}
		}
	}
	out.Zones, out.CapacityTypes = slices.Sorted(maps.Keys(zones)), slices.Sorted(maps.Keys(capacityTypes))
	out.Architectures = slices.Sorted(maps.Keys(arches))
	return out
}

// existingName is a state node's node name, or its NodeClaim's before
// the node registers.
func existingName(n *scheduler.ExistingNode) string {
	if n.Node != nil {
		return n.Node.Name
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Name
	}
	return n.ProviderID()
}

// quoteAll is "a", "b" and "c" quoted.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// The rules the checks of this file emit.
var (
	ruleUnschedulable = rules.Register(rules.Rule{
		ID: "pod-unschedulable", Severity: rules.Error, Category: Category,
		Title: "Karpenter would not place a workload's pods",
		Behaviour: "The pods stay Pending: Karpenter logs `could not schedule pod` with the reason and creates no NodeClaim for them " +
			"(or, for a pod it will not consider, `ignoring pod`). The diagnostic is at the workload's element of `workloads` and quotes " +
			"Karpenter's reason for the first pod it could not place, decided by running Karpenter v1.14's own scheduler on the " +
			"NodePools, their EC2NodeClasses' subnets and capacity reservations, the region's instance types and offerings, and the " +
			"pods the workloads' controllers would create. List the workload in `allow_unschedulable` to report it as a warning. " +
			"It is a warning too when a NodePool is left out because its EC2NodeClass's zones or capacity reservations could not " +
			"be read (AWS denied ec2:DescribeSubnets or ec2:DescribeCapacityReservations to the identity that plans): that pool " +
			"might take the pods.",
		Source: "kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go (Schedule, Validate), " +
			"pkg/controllers/provisioning/scheduling/scheduler.go (Solve); kubernetes-sigs/karpenter#1162, aws/karpenter-provider-aws#4738",
		Bad: example([]string{examplePool("gpu", "      taints:\n        - key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule\n")},
			[]string{exampleClass}, []string{exampleDeployment("2", "500m", "")}, ""),
		Good: example([]string{examplePool("gpu", "      taints:\n        - key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule\n")},
			[]string{exampleClass}, []string{exampleDeployment("2", "500m",
				"      tolerations:\n        - key: nvidia.com/gpu\n          operator: Exists\n          effect: NoSchedule\n")}, ""),
	})
	ruleDocument = rules.Register(rules.Rule{
		ID: "scheduling-document-invalid", Severity: rules.Error, Category: Category,
		Title: "a document of node_pools, node_classes or workloads cannot be read",
		Behaviour: "kubectl, Helm and Argo CD refuse a document that is not YAML or JSON, has no apiVersion or kind, uses an API " +
			"version Kubernetes no longer serves, repeats an object, or carries a field the object does not have (kubectl's strict " +
			"field validation; an API server that drops the field stores the object without it, so the pods miss what it said). " +
			"`node_pools` holds karpenter.sh/v1 NodePools only, `node_classes` karpenter.k8s.aws/v1 EC2NodeClasses only. The " +
			"object is left out of the decision.",
		Source: "sigs.k8s.io/yaml YAMLToJSONStrict; k8s.io/apimachinery runtime/serializer strict decoding; kubectl apply --validate=strict",
		Bad: example([]string{examplePool("default", "")}, []string{exampleClass},
			[]string{exampleDeployment("2", "500m", "      tolerationz:\n        - key: dedicated\n          operator: Exists\n")}, ""),
		Good: example([]string{examplePool("default", "")}, []string{exampleClass},
			[]string{exampleDeployment("2", "500m", "      tolerations:\n        - key: dedicated\n          operator: Exists\n")}, ""),
	})
	rulePoolSkipped = rules.Register(rules.Rule{
		ID: "nodepool-not-scheduling", Severity: rules.Warning, Category: Category,
		Title: "Karpenter leaves a NodePool out of scheduling",
		Behaviour: "Karpenter's provisioner schedules only with NodePools that are Ready (runtime validation passed and their " +
			"EC2NodeClass is Ready), dynamic (no `replicas`), and whose requirements leave an instance type with an available " +
			"offering; it logs `ignoring nodepool, not ready` or `skipping, nodepool requirements filtered out all instance types` " +
			"and goes on with the others. Pods only this pool could take are then unschedulable (`pod-unschedulable`).",
		Source: "kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go (NewScheduler), " +
			"pkg/controllers/provisioning/scheduling/scheduler.go (NewScheduler), pkg/controllers/nodepool/readiness",
		Bad: example([]string{examplePool("default", "")},
			[]string{strings.Replace(exampleClass, "karpenter.sh/discovery: demo\n  securityGroup", "karpenter.sh/discovery: dem0\n  securityGroup", 1)},
			[]string{exampleDeployment("2", "500m", "")}, `allow_unschedulable = ["default/Deployment/web"]`),
		Good: example([]string{examplePool("default", "")}, []string{exampleClass},
			[]string{exampleDeployment("2", "500m", "")}, `allow_unschedulable = ["default/Deployment/web"]`),
	})
)
