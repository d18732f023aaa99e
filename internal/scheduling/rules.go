package scheduling

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Category groups the scheduling rules in the rules guide.
const Category = "Scheduling"

// The docs examples are data sources whose manifests are literal heredocs,
// planned against the project's emulator fixtures by TestRuleExamples:
// cluster "demo"'s subnets (us-east-1a, b, c) carry karpenter.sh/discovery
// = "demo".

// exampleClass is an EC2NodeClass on the demo subnets.
const exampleClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole-demo
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`

// examplePool is a NodePool on exampleClass; extra is indented under
// spec.template.spec.
func examplePool(name, extra string) string {
	return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: ` + name + `
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
` + extra
}

// exampleDeployment is a Deployment whose pod spec ends with extra
// (indented under spec.template.spec).
func exampleDeployment(replicas, cpu, extra string) string {
	const name = "web"
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
spec:
  replicas: ` + replicas + `
  selector:
    matchLabels:
      app: ` + name + `
  template:
    metadata:
      labels:
        app: ` + name + `
    spec:
      containers:
        - name: app
          image: nginx
          resources:
            requests:
              cpu: "` + cpu + `"
` + extra
}

// example renders a data source whose lists each hold one element (the
// documents of a list joined by --- lines), as terraform fmt leaves it,
// with an optional last line.
func example(pools, classes, workloads []string, tail string) string {
	list := func(docs []string) string {
		var b strings.Builder
		b.WriteString("[<<-EOT\n")
		for _, l := range strings.Split(strings.TrimRight(strings.Join(docs, "---\n"), "\n"), "\n") {
			b.WriteString("    " + l + "\n")
		}
		b.WriteString("  EOT\n  ]")
		return b.String()
	}
	s := "data \"karpenter_scheduling\" \"prod\" {\n" +
		"  node_pools = " + list(pools) + "\n" +
		"  node_classes = " + list(classes) + "\n" +
		"  workloads = " + list(workloads) + "\n"
	if tail != "" {
		s += "\n  " + tail + "\n"
	}
	return s + "}"
}

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
	// RuleNeedsAWS: the data source without AWS facts.
	RuleNeedsAWS = rules.Register(rules.Rule{
		ID: "scheduling-needs-aws", Severity: rules.Error, Category: Category,
		Title: "the scheduling decision needs AWS",
		Behaviour: "Which instance types a NodePool can launch, where, and how much of each is allocatable come from the " +
			"region's ec2:DescribeInstanceTypes and DescribeInstanceTypeOfferings and from the subnets the EC2NodeClasses select; " +
			"without AWS configured the provider has none of them and cannot decide. It reads them once per run, read-only.",
		Source: "aws/karpenter-provider-aws pkg/providers/instancetype (List, UpdateInstanceTypes, UpdateInstanceTypeOfferings)",
		Bad:    "provider \"karpenter\" {}\n\n" + example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")}, ""),
		Good: "provider \"karpenter\" {\n  region = \"us-east-1\"\n}\n\n" +
			example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")}, ""),
	})
	// RuleAllowKey: an allow_unschedulable element that is no workload key.
	// RulePriceReadDenied is reported once per plan for each price read
	// AWS denies.
	RulePriceReadDenied = rules.Register(rules.Rule{
		ID: "price-read-denied", Severity: rules.Warning, Category: Category,
		Title: "AWS denied a price read: the cost is priced from Karpenter's static table",
		Behaviour: "The decision's cost reads prices as Karpenter does: pricing:GetProducts (on-demand, from the Price List API) and " +
			"ec2:DescribeSpotPriceHistory (spot). When AWS answers AccessDenied or UnauthorizedOperation, that half keeps Karpenter's " +
			"static table (spot at the on-demand figure), `cost.source` says so, and the plan goes on: the decision's order of " +
			"instance types then follows the table, as it does in a Karpenter whose role lacks the permission. One warning per " +
			"denied permission and plan; `acknowledged_warnings` silences it where the planning role is meant to lack the read.",
		Source: "aws/karpenter-provider-aws pkg/providers/pricing (UpdateOnDemandPricing, UpdateSpotPricing); IAM policy evaluation",
		Bad:    "provider \"karpenter\" {\n  region = \"us-east-1\"\n  # the planning role lacks pricing:GetProducts\n}\n",
		Good: "provider \"karpenter\" {\n  region = \"us-east-1\"\n  # grant pricing:GetProducts and ec2:DescribeSpotPriceHistory, or:\n" +
			"  acknowledged_warnings = [\"price-read-denied\"]\n}\n",
	})
	RuleAllowKey = rules.Register(rules.Rule{
		ID: "allow-unschedulable-key-invalid", Severity: rules.Error, Category: Category,
		Title: "an allow_unschedulable element is not a workload key",
		Behaviour: "Workloads are named `\"<namespace>/<kind>/<name>\"`, as the `pods` attribute is keyed; any other string " +
			"acknowledges nothing, so the workload's unschedulable pods would still fail the plan.",
		Source: "the provider's allow_unschedulable argument",
		Bad:    example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")}, `allow_unschedulable = ["web"]`),
		Good: example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")},
			`allow_unschedulable = ["default/Deployment/web"]`),
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
	ruleWeightTie = rules.Register(rules.Rule{
		ID: "nodepool-weight-tie", Severity: rules.Warning, Category: Category,
		Title: "NodePools of equal weight admit the same pods: their names decide which takes them",
		Behaviour: "Karpenter tries NodePools by `weight`, highest first, and NodePools of equal weight (no weight is 0) by " +
			"name in reverse alphabetical order (`spot` before `general`). A pod goes to the first NodePool in that order " +
			"that can take it, so when two NodePools of equal weight both admit a workload, the one whose name sorts last " +
			"takes all its pods and the other none (until the first reaches its limits). That is rarely what the author " +
			"meant: give the NodePool meant to take them first the higher weight.",
		Source: "kubernetes-sigs/karpenter pkg/utils/nodepool/nodepool.go (OrderByWeight), " +
			"pkg/controllers/provisioning/scheduling/scheduler.go (addToNewNodeClaim)",
		Bad: example([]string{examplePool("general", ""), examplePool("spot", "")}, []string{exampleClass},
			[]string{exampleDeployment("2", "500m", "")}, ""),
		Good: example([]string{strings.Replace(examplePool("general", ""), "spec:\n  template:", "spec:\n  weight: 10\n  template:", 1),
			examplePool("spot", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")}, ""),
	})
)

// PriceReadDenied is the finding of a denied price read (action is
// "pricing:GetProducts" or "ec2:DescribeSpotPriceHistory"); answer is
// AWS's error.
func PriceReadDenied(action string, answer error) rules.Finding {
	half := "on-demand"
	if action == "ec2:DescribeSpotPriceHistory" {
		half = "spot"
	}
	return rules.New(RulePriceReadDenied, rules.Path{}, "AWS denied %s to the identity that plans: the %s prices of the decision's cost "+
		"are Karpenter's static table (karpenter-provider-aws %s, generated %s), and cost.source says so. The decision itself is made "+
		"as a Karpenter without that permission makes it.\n\nAWS answered: %s\n\nGrant %s to the identity that plans.", action, half,
		karpenterAWSVersion, StaticTableDate, answer.Error(), action).WithFix(rules.Fix{Acknowledge: true}) // each front end says how to keep the gap
}
