package provider

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Images are keyed, not positional: a release bump then diffs as changed
// ids and names under the same keys. The position in status.amis follows
// creation dates, so a list would shift entries between architectures.

// amiKeys returns one key per image: "<arch>/<variant>" for alias images,
// "<arch>" otherwise; when several requirement sets share a key, each gets
// "#<n>", numbered by its requirements (which a release bump does not
// change), so the keys stay stable.
func amiKeys(amis []ami.AMI) []string {
	base := make([]string, len(amis))
	groups := map[string][]int{}
	for i, a := range amis {
		base[i] = a.Architecture
		if a.Variant != "" {
			base[i] += "/" + string(a.Variant)
		}
		groups[base[i]] = append(groups[base[i]], i)
	}
	out := append([]string(nil), base...)
	for b, idx := range groups {
		if len(idx) < 2 {
			continue
		}
		sort.SliceStable(idx, func(x, y int) bool {
			return requirementsString(amis[idx[x]].Requirements) < requirementsString(amis[idx[y]].Requirements)
		})
		for n, i := range idx {
			out[i] = fmt.Sprintf("%s#%d", b, n+1)
		}
	}
	return out
}

func requirementsString(rs []ami.Requirement) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, r.Key+" "+r.Operator+" "+strings.Join(r.Values, ","))
	}
	return strings.Join(parts, ";")
}

// classFullAMIAttrTypes is an image of the class's amis: every field of
// status.amis, the requirements on one line.
var classFullAMIAttrTypes = func() map[string]attr.Type {
	t := maps.Clone(amiAttrTypes)
	t["requirements"] = types.StringType
	return t
}()

// amisMapValue is the class's amis, keyed.
func amisMapValue(amis []ami.AMI) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := map[string]attr.Value{}
	for i, k := range amiKeys(amis) {
		a := amis[i]
		o, d := types.ObjectValue(classFullAMIAttrTypes, map[string]attr.Value{
			"id": types.StringValue(a.ID), "name": types.StringValue(a.Name), "architecture": types.StringValue(a.Architecture),
			"variant": types.StringValue(string(a.Variant)), "deprecated": types.BoolValue(a.Deprecated),
			"creation_date": types.StringValue(a.CreationDate), "owner_id": types.StringValue(a.OwnerID),
			"requirements": types.StringValue(formatRequirements(a.Requirements)),
		})
		diags.Append(d...)
		elems[k] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: classFullAMIAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}

// formatRequirements writes requirements on one line, as
// "key Operator v1,v2; key Exists": label keys and values hold no spaces,
// commas or semicolons, so parseRequirements reads it back exactly.
func formatRequirements(rs []ami.Requirement) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		p := r.Key + " " + r.Operator
		if len(r.Values) > 0 {
			p += " " + strings.Join(r.Values, ",")
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

func parseRequirements(s string) []ami.Requirement {
	var out []ami.Requirement
	for _, part := range strings.Split(s, ";") {
		f := strings.Fields(part)
		if len(f) < 2 {
			continue
		}
		r := ami.Requirement{Key: f[0], Operator: f[1]}
		if len(f) > 2 {
			r.Values = strings.Split(f[2], ",")
		}
		out = append(out, r)
	}
	return out
}

// keyParts reads architecture and variant back from a key
// ("amd64/nvidia", "arm64", "amd64#2").
func keyParts(k string) (arch string, variant amifamily.Variant) {
	if i := strings.IndexByte(k, '#'); i >= 0 {
		k = k[:i]
	}
	arch, v, _ := strings.Cut(k, "/")
	return arch, amifamily.Variant(v)
}

// classAMIAttrTypes is an image as node_class carries it: only what the
// pool's checks read, architecture and variant being in its key
// (requirements pick the image of an instance type, creation_date restores
// Karpenter's order, id and name name it).
var classAMIAttrTypes = map[string]attr.Type{
	"id":            types.StringType,
	"name":          types.StringType,
	"creation_date": types.StringType,
	"requirements":  types.StringType,
}

var classAMIsType = types.MapType{ElemType: types.ObjectType{AttrTypes: classAMIAttrTypes}}

// classAMIsValue is node_class.amis.
func classAMIsValue(amis []ami.AMI) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := map[string]attr.Value{}
	for i, k := range amiKeys(amis) {
		a := amis[i]
		o, d := types.ObjectValue(classAMIAttrTypes, map[string]attr.Value{
			"id": types.StringValue(a.ID), "name": types.StringValue(a.Name),
			"creation_date": types.StringValue(a.CreationDate), "requirements": types.StringValue(formatRequirements(a.Requirements)),
		})
		diags.Append(d...)
		elems[k] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: classAMIAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}

// amisFromMap reads node_class.amis back into status.amis order: newest
// creation date first, then image id, as the class resolved them; the key
// breaks the remaining ties (one image serving two requirement sets).
func amisFromMap(r *reader, v attr.Value, p rules.Path) []ami.AMI {
	mv, ok := v.(types.Map)
	if !ok || !r.mark(v, p) {
		return nil
	}
	type entry struct {
		key string
		a   ami.AMI
	}
	var es []entry
	for k, e := range mv.Elements() {
		ip := p.Key(k)
		o := r.object(e, ip)
		if o == nil {
			continue
		}
		arch, variant := keyParts(k)
		a := ami.AMI{
			ID: r.str(o["id"], ip.Attr("id")), Name: r.str(o["name"], ip.Attr("name")),
			CreationDate: r.str(o["creation_date"], ip.Attr("creation_date")), Architecture: arch, Variant: variant,
			Requirements: parseRequirements(r.str(o["requirements"], ip.Attr("requirements"))),
		}
		a.Image.ID, a.Image.Name = a.ID, a.Name
		es = append(es, entry{k, a})
	}
	sort.Slice(es, func(i, j int) bool {
		ci, cj := createdUnix(es[i].a.CreationDate), createdUnix(es[j].a.CreationDate)
		if ci != cj {
			return ci > cj
		}
		if es[i].a.ID != es[j].a.ID {
			return es[i].a.ID < es[j].a.ID
		}
		return es[i].key < es[j].key
	})
	out := make([]ami.AMI, len(es))
	for i, e := range es {
		out[i] = e.a
	}
	return out
}

// createdUnix is a creation date in seconds; a malformed one sorts last,
// as Karpenter treats it as the minimum time.
func createdUnix(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return -1 << 62
	}
	return t.Unix()
}

// assignmentsMapValue is ami_assignments keyed as the class's images: an
// assignment takes the key of the class image it names.
func assignmentsMapValue(class []ami.AMI, as []nodepool.Assignment) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	keyOf := map[[3]string]string{}
	for i, k := range amiKeys(class) {
		a := class[i]
		keyOf[[3]string{a.ID, a.Architecture, string(a.Variant)}] = k
	}
	elems := map[string]attr.Value{}
	for _, a := range as {
		k, ok := keyOf[[3]string{a.AMIID, a.Architecture, string(a.Variant)}]
		if !ok {
			k = a.Architecture
			if a.Variant != "" {
				k += "/" + string(a.Variant)
			}
		}
		for base, n := k, 2; elems[k] != nil; n++ {
			k = fmt.Sprintf("%s#%d", base, n)
		}
		fams, d := types.ListValueFrom(context.Background(), types.StringType, nonNil(a.InstanceFamilies))
		diags.Append(d...)
		o, d := types.ObjectValue(assignmentAttrTypes, map[string]attr.Value{
			"architecture": types.StringValue(a.Architecture), "variant": types.StringValue(string(a.Variant)),
			"ami_id": types.StringValue(a.AMIID), "ami_name": types.StringValue(a.AMIName), "instance_families": fams,
		})
		diags.Append(d...)
		elems[k] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: assignmentAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}
