package crd

import (
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// ManifestPath is the inverse of TerraformPath: it maps an attribute path of
// the kind's Terraform resource ("requirements[0].min_values") to the CRD
// field path of the manifest ("spec.template.spec.requirements[0].minValues"),
// so that findings of the resources' rules can be reported on manifests
// written by hand. Map keys print as the API server prints them, in
// brackets ("spec.tags[team]"). ok is false when a step has no CRD field in
// the tree (an attribute only the resource has, such as bootstrap or
// node_class.amis); the path is then that of the longest prefix that has one.
func (k *Kind) ManifestPath(p rules.Path) (path string, ok bool) {
	var b strings.Builder
	cur := k.tree
	for _, s := range p.Steps() {
		switch s.Kind {
		case rules.AttrStep:
			crdName, child := childByTerraformName(cur, s.Name)
			if child == nil || cur.list || cur.dict {
				return b.String(), false
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(crdName)
			cur = child
		case rules.IndexStep:
			if !cur.list {
				return b.String(), false
			}
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			cur = &node{fields: cur.fields}
		case rules.KeyStep:
			if !cur.dict {
				return b.String(), false
			}
			b.WriteString("[" + s.Name + "]")
			// Dict values are scalars: nothing lies below a key.
			cur = &node{}
		}
	}
	return b.String(), true
}

// childByTerraformName finds the field of n whose Terraform name is tf,
// looking through the flat levels (spec, spec.template, ...) that have no
// attribute of their own; crdName is the CRD path from n to it.
func childByTerraformName(n *node, tf string) (crdName string, child *node) {
	for name, c := range n.fields {
		if c.tf == tf {
			return name, c
		}
	}
	for name, c := range n.fields {
		if c.tf == "" && !c.list && !c.dict {
			if rest, found := childByTerraformName(c, tf); found != nil {
				return name + "." + rest, found
			}
		}
	}
	return "", nil
}
