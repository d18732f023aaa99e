package drift

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/mitchellh/hashstructure/v2"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift/internal/shape"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Effect is what Karpenter does to running nodes when a field changes.
type Effect int

const (
	// ReplacesAll: the field is hashed, so every NodeClaim launched from the
	// class (or pool) stops matching the new hash and is Drifted.
	ReplacesAll Effect = iota + 1
	// ReplacesMismatched: Karpenter does not hash the field but drifts the
	// nodes whose image (AMIDrift), subnet (SubnetDrift), security groups
	// (SecurityGroupDrift), capacity reservation (CapacityReservationDrift)
	// or labels (NodePool requirements) the new value no longer selects.
	ReplacesMismatched
	// NoReplacement: Karpenter does not drift nodes on this field.
	NoReplacement
)

func (e Effect) String() string {
	switch e {
	case ReplacesAll:
		return "replaces all nodes"
	case ReplacesMismatched:
		return "replaces nodes that no longer match"
	case NoReplacement:
		return "no replacement"
	}
	return fmt.Sprintf("Effect(%d)", int(e))
}

// Change is one changed field of a manifest spec.
type Change struct {
	// Path is the manifest path: "spec.kubelet.maxPods",
	// "spec.template.spec.taints", or CABundleField.
	Path   string
	Effect Effect
}

func (c Change) String() string { return fmt.Sprintf("%s (%s)", c.Path, c.Effect) }

// CABundleField is the Path of a change of the CA bundle Karpenter hashes
// from 1.12 on (not a manifest field: it comes from the cluster).
const CABundleField = "cluster CA bundle"

// Fields Karpenter does not hash but re-resolves; a change drifts the nodes
// that no longer match (aws/karpenter-provider-aws pkg/cloudprovider/drift.go
// isAMIDrifted, isSubnetDrifted, areSecurityGroupsDrifted,
// isCapacityReservationDrifted; kubernetes-sigs/karpenter
// pkg/controllers/nodeclaim/disruption/drift.go areRequirementsDrifted).
var resolvedFields = map[string]bool{
	"spec.amiSelectorTerms":                 true,
	"spec.subnetSelectorTerms":              true,
	"spec.securityGroupSelectorTerms":       true,
	"spec.capacityReservationSelectorTerms": true,
	"spec.template.spec.requirements":       true,
}

// EC2NodeClassChanges lists the fields that differ between two specs of one
// EC2NodeClass and what each does to running nodes under Karpenter kv: the
// hashed ones (and the resolved AMI family, and the CA bundle from 1.12)
// ReplacesAll; selector terms ReplacesMismatched; anything else
// NoReplacement (a value equal to its CRD default, kubelet before 1.1, a
// field the release does not have yet). The list is sorted by path. An error is one EC2NodeClassHash would return.
func EC2NodeClassChanges(old, updated manifest.EC2NodeClassSpec, oldCABundle, newCABundle string, kv versions.Karpenter) ([]Change, error) {
	oldS, oldFamily, err := classShape(old, kv)
	if err != nil {
		return nil, err
	}
	newS, newFamily, err := classShape(updated, kv)
	if err != nil {
		return nil, err
	}
	hashed := diffHashed(reflect.ValueOf(*oldS), reflect.ValueOf(*newS), "spec", nil)
	if oldFamily != newFamily {
		// Hash() hashes AMIFamily(): spec.amiFamily, else the alias's family.
		p := "spec.amiFamily"
		if old.AMIFamily == updated.AMIFamily {
			p = "spec.amiSelectorTerms"
		}
		hashed = append(hashed, p)
	}
	if HashUsesCABundle(kv) && oldCABundle != newCABundle {
		hashed = append(hashed, CABundleField)
	}
	other, err := jsonDiff(old, updated, "spec")
	if err != nil {
		return nil, err
	}
	return classify(hashed, other), nil
}

// NodePoolChanges is EC2NodeClassChanges for NodePools: spec.template is
// hashed (requirements aside, which are ReplacesMismatched); weight, limits,
// disruption and replicas are NoReplacement.
func NodePoolChanges(old, updated manifest.NodePoolSpec, kv versions.Karpenter) ([]Change, error) {
	ot, err := templateShape(old.Template)
	if err != nil {
		return nil, err
	}
	nt, err := templateShape(updated.Template)
	if err != nil {
		return nil, err
	}
	hashed := diffHashed(reflect.ValueOf(*ot), reflect.ValueOf(*nt), "spec.template", nil)
	oldRest, newRest := old, updated
	oldRest.Template, newRest.Template = manifest.NodeClaimTemplate{}, manifest.NodeClaimTemplate{}
	other, err := jsonDiff(oldRest, newRest, "spec")
	if err != nil {
		return nil, err
	}
	// The template is compared one level further down, so that a
	// requirements change is told apart from a taint change.
	for _, part := range []struct {
		path     string
		old, new any
	}{
		{"spec.template.metadata", old.Template.Metadata, updated.Template.Metadata},
		{"spec.template.spec", old.Template.Spec, updated.Template.Spec},
	} {
		d, err := jsonDiff(part.old, part.new, part.path)
		if err != nil {
			return nil, err
		}
		other = append(other, d...)
	}
	return classify(hashed, other), nil
}

// classify merges hashed paths with the paths whose rendered JSON differs:
// a path under (or over) a hashed path is that hashed change; a selector is
// ReplacesMismatched; the rest NoReplacement.
func classify(hashed, other []string) []Change {
	var out []Change
	for _, p := range hashed {
		out = append(out, Change{Path: p, Effect: ReplacesAll})
	}
	for _, p := range other {
		if covered(p, hashed) {
			continue
		}
		e := NoReplacement
		if resolvedFields[p] {
			e = ReplacesMismatched
		}
		out = append(out, Change{Path: p, Effect: e})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func covered(p string, hashed []string) bool {
	for _, h := range hashed {
		if h == p || strings.HasPrefix(h, p+".") || strings.HasPrefix(p, h+".") {
			return true
		}
	}
	return false
}

// diffHashed returns the paths of the hashed fields whose contribution to
// the hash differs between a and b (values of the same shape type). It goes
// into structs and pointers to structs, and stops at lists, maps and
// scalars. For every field, hashstructure's contribution is nothing when
// the field is zero and the hash of its value otherwise, so the two hashes
// are equal exactly when this returns nothing.
func diffHashed(a, b reflect.Value, path string, out []string) []string {
	t := a.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("hash")
		if !f.IsExported() || tag == "ignore" || tag == "-" {
			continue
		}
		p := path + "." + jsonName(f)
		fa, fb := a.Field(i), b.Field(i)
		if byField(f.Type) {
			// Name the fields inside; a nil and an empty struct differ
			// only as a whole (a set pointer is hashed, a nil one skipped).
			n := len(out)
			out = diffHashed(structValue(fa), structValue(fb), p, out)
			if len(out) > n {
				continue
			}
		}
		if contribution(fa, tag) != contribution(fb, tag) {
			out = append(out, p)
		}
	}
	return out
}

// byField reports whether fields of type t are compared field by field:
// the shape's own structs, not the duration and quantity types that hash as
// one value.
func byField(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t.PkgPath() == shapePkg && t != reflect.TypeOf(shape.NillableDuration{})
}

// structValue is the struct v holds or points to; the zero struct for nil.
func structValue(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Zero(v.Type().Elem())
		}
		return v.Elem()
	}
	return v
}

var shapePkg = reflect.TypeOf(shape.EC2NodeClassSpec{}).PkgPath()

type zeroContribution struct{}

// contribution is what a field adds to the hash: nothing when zero
// (IgnoreZeroValue), else the hash of its value (its String() for
// hash:"string").
func contribution(v reflect.Value, tag string) any {
	if v.IsZero() {
		return zeroContribution{}
	}
	x := v.Interface()
	if s, ok := x.(fmt.Stringer); ok && tag == "string" {
		x = s.String()
	}
	h, err := hashstructure.Hash(x, hashstructure.FormatV2, hashOptions())
	if err != nil {
		// Not reachable for values that decoded; count it as changed
		// rather than hide it.
		return err.Error()
	}
	return h
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// jsonDiff returns prefix.key for every top-level key whose rendered JSON
// differs between a and b (keys omitted by omitempty count as absent).
func jsonDiff(a, b any, prefix string) ([]string, error) {
	am, err := jsonFields(a)
	if err != nil {
		return nil, err
	}
	bm, err := jsonFields(b)
	if err != nil {
		return nil, err
	}
	var out []string
	for k, av := range am {
		if bv, ok := bm[k]; !ok || !bytes.Equal(av, bv) {
			out = append(out, prefix+"."+k)
		}
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			out = append(out, prefix+"."+k)
		}
	}
	return out, nil
}

func jsonFields(v any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	if string(b) == "null" {
		return m, nil
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
