package nodepool

import (
	"strings"
)

// Docs examples (docs/guides/rules.md is generated from the catalogue). They
// are real HCL of the karpenter_nodepool interface; the package tests decode
// every example and check that Bad triggers its rule and Good does not.
// The EC2NodeClasses they reference (karpenter_ec2nodeclass.<name>) are the
// test fixtures named in examples_test.go.

// example is a karpenter_nodepool named "default" on the al2023@latest
// class with the given extra attributes (one per line).
func example(attrs ...string) string {
	return exampleOn("default", attrs...)
}

// exampleOn is example on karpenter_ec2nodeclass.<class>.
func exampleOn(class string, attrs ...string) string {
	return exampleFull("default", "karpenter_ec2nodeclass."+class+".node_class", attrs...)
}

// exampleFull writes every part.
func exampleFull(name, nodeClass string, attrs ...string) string {
	var b strings.Builder
	b.WriteString("resource \"karpenter_nodepool\" \"default\" {\n")
	b.WriteString("  name       = \"" + name + "\"\n")
	b.WriteString("  node_class = " + nodeClass + "\n")
	for _, a := range attrs {
		for _, l := range strings.Split(a, "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// atVersion prefixes the provider block that sets karpenter_version.
func atVersion(v, hcl string) string {
	return "provider \"karpenter\" {\n  karpenter_version = \"" + v + "\"\n}\n\n" + hcl
}

// req is one requirement object.
func req(key, op string, values ...string) string {
	if len(values) == 0 {
		return `{ key = "` + key + `", operator = "` + op + `" }`
	}
	return `{ key = "` + key + `", operator = "` + op + `", values = ["` + strings.Join(values, `", "`) + `"] }`
}

// reqs is the requirements attribute.
func reqs(rs ...string) string {
	return "requirements = [" + strings.Join(rs, ", ") + "]"
}

func families(names ...string) string {
	return reqs(req("karpenter.k8s.aws/instance-family", "In", names...))
}
