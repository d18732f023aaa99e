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
