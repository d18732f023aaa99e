package requirements

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Category of every rule in this package (docs/guides/rules.md section).
const Category = "NodePool requirements"

// ExamplePool renders a karpenter_nodepool with the given requirements
// blocks (ExampleRequirement), for the docs examples of this package and of
// instancetype.
func ExamplePool(blocks ...string) string {
	return rules.Block(`resource "karpenter_nodepool" "x"`, append([]string{`name = "default"`, `node_class = { name = "default" }`}, blocks...)...)
}

// ExampleRequirement is one requirements block: key, operator and the
// further arguments as written (`values = ["a"]`, `min_values = 2`).
func ExampleRequirement(key, op string, args ...string) string {
	return rules.Block("requirements", append([]string{`key = "` + key + `"`, `operator = "` + op + `"`}, args...)...)
}

// before19 prefixes the provider block that sets karpenter_version to 1.8,
// the last minor release before 1.9 relaxed the requirement rules.
func before19(hcl string) string {
	return rules.WithProvider(hcl, `karpenter_version = "1.8"`)
}

var pool, req = ExamplePool, ExampleRequirement
