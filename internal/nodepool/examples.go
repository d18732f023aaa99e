package nodepool

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Docs examples (docs/guides/rules.md is generated from the catalogue). They
// are real HCL of the karpenter_nodepool interface, in block syntax and
// `terraform fmt` layout; the package tests decode every example and check
// that Bad triggers its rule and Good does not. The EC2NodeClasses they
// reference (karpenter_ec2nodeclass.<name>) are the test fixtures named in
// examples_test.go.

// example is a karpenter_nodepool named "default" on the al2023@latest
// class with the given extra arguments and blocks.
func example(items ...string) string {
	return exampleOn("default", items...)
}

// exampleOn is example on karpenter_ec2nodeclass.<class>.
func exampleOn(class string, items ...string) string {
	return exampleFull("default", "karpenter_ec2nodeclass."+class+".node_class", items...)
}

// exampleFull writes every part.
func exampleFull(name, nodeClass string, items ...string) string {
	head := []string{`name = "` + name + `"`, "node_class = " + nodeClass}
	return rules.Block(`resource "karpenter_nodepool" "default"`, append(head, items...)...) + "\n"
}

// atVersion prefixes the provider block that sets karpenter_version.
func atVersion(v, hcl string) string {
	return rules.WithProvider(hcl, `karpenter_version = "`+v+`"`)
}

// req is one requirements block.
func req(key, op string, values ...string) string {
	args := []string{`key = "` + key + `"`, `operator = "` + op + `"`}
	if len(values) > 0 {
		args = append(args, `values = ["`+strings.Join(values, `", "`)+`"]`)
	}
	return rules.Block("requirements", args...)
}

// reqs is several requirements blocks, in order.
func reqs(rs ...string) string {
	return strings.Join(rs, "\n")
}

func families(names ...string) string {
	return req("karpenter.k8s.aws/instance-family", "In", names...)
}

// taint is one taints or startup_taints block; value "" is left out.
func taint(kind, key, value, effect string) string {
	args := []string{`key = "` + key + `"`}
	if value != "" {
		args = append(args, `value = "`+value+`"`)
	}
	return rules.Block(kind, append(args, `effect = "`+effect+`"`)...)
}

// disruption is the disruption block; budget is one of its budgets blocks.
func disruption(items ...string) string { return rules.Block("disruption", items...) }

func budget(args ...string) string { return rules.Block("budgets", args...) }
