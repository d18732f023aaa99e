package provider

import (
	"fmt"
	"maps"
	"slices"
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
		reqs := make(map[int]string, len(idx))
		for _, i := range idx {
			reqs[i] = formatRequirements(amis[i].Requirements)
		}
		sort.SliceStable(idx, func(x, y int) bool { return reqs[idx[x]] < reqs[idx[y]] })
		for n, i := range idx {
			out[i] = fmt.Sprintf("%s#%d", b, n+1)
		}
	}
	return out
}

// formatRequirements writes requirements on one line, as
// "key Operator v1,v2; key Exists": label keys and values hold no spaces,
// commas, semicolons or '|', so parseRequirements reads it back exactly.
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

// parseRequirements reads formatRequirements' form back, and only that
// form: whatever it accepts formats back to the same text.
func parseRequirements(s string) ([]ami.Requirement, error) {
	if s == "" {
		return nil, nil
	}
	var out []ami.Requirement
	for _, part := range strings.Split(s, "; ") {
		f := strings.Split(part, " ")
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("requirement %q is not `<key> <operator> <v1>,<v2>` or `<key> <operator>`", part)
		}
		r := ami.Requirement{Key: f[0], Operator: f[1]}
		if len(f) == 3 {
			r.Values = strings.Split(f[2], ",")
		}
		for _, w := range append([]string{r.Key, r.Operator}, r.Values...) {
			if w == "" || strings.ContainsAny(w, ";|\t\n") {
				return nil, fmt.Errorf("requirement %q has an empty word or one holding ';' or '|' (label keys, operators and values hold neither)", part)
			}
		}
		for _, w := range []string{r.Key, r.Operator} {
			if strings.Contains(w, ",") {
				return nil, fmt.Errorf("requirement %q: key and operator hold no ','", part)
			}
		}
		out = append(out, r)
	}
	return out, nil
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

// node_class.amis holds each image on one line, so a plan prints one line
// per image and a release bump one changed line per key (id first, as it
// changes; requirements last, as they do not):
//
//	"<id> | <name> | <creation_date> | <requirements>"
//
// Architecture and variant are in the key; requirements pick the image of
// an instance type, creation_date restores Karpenter's order, id and name
// name it. Image ids ("ami-" and hex), RFC 3339 dates and requirements
// (label keys and values: no '|') hold no '|', so the first '|' and the
// last two delimit the name exactly whatever it holds: EC2 allows 3-128
// letters, digits, spaces and ( ) [ ] . / - ' @ _ in names (CreateImage,
// RegisterImage), but an old image's name may predate that constraint.
const classAMIForm = "`<id> | <name> | <creation_date> | <requirements>`"

const classAMISep = " | "

var classAMIsType = types.MapType{ElemType: types.StringType}

func formatClassAMI(a ami.AMI) string {
	return a.ID + classAMISep + a.Name + classAMISep + a.CreationDate + classAMISep + formatRequirements(a.Requirements)
}

// parseClassAMI reads formatClassAMI's form back (architecture and variant
// come from the key); whatever it accepts formats back to the same text.
// The error says which part is malformed.
func parseClassAMI(s string) (ami.AMI, error) {
	i := strings.Index(s, classAMISep)
	k := strings.LastIndex(s, classAMISep)
	j := -1
	if k >= 0 {
		j = strings.LastIndex(s[:k], classAMISep)
	}
	if i < 0 || j < i+len(classAMISep) || k < j+len(classAMISep) {
		return ami.AMI{}, fmt.Errorf("it is not four fields separated by %q", classAMISep)
	}
	a := ami.AMI{ID: s[:i], Name: s[i+len(classAMISep) : j], CreationDate: s[j+len(classAMISep) : k]}
	if a.ID == "" || strings.ContainsAny(a.ID, " |\t\n") {
		return ami.AMI{}, fmt.Errorf("the id %q is empty or holds spaces or '|'", a.ID)
	}
	if a.CreationDate != "" {
		if _, err := time.Parse(time.RFC3339, a.CreationDate); err != nil || strings.Contains(a.CreationDate, "|") {
			return ami.AMI{}, fmt.Errorf("the creation date %q is not RFC 3339 (2025-11-12T04:10:33.000Z)", a.CreationDate)
		}
	}
	rs, err := parseRequirements(s[k+len(classAMISep):])
	if err != nil {
		return ami.AMI{}, err
	}
	a.Requirements = rs
	a.Image.ID, a.Image.Name = a.ID, a.Name
	return a, nil
}

// classAMIsValue is node_class.amis.
func classAMIsValue(amis []ami.AMI) (types.Map, diag.Diagnostics) {
	elems := map[string]attr.Value{}
	for i, k := range amiKeys(amis) {
		elems[k] = types.StringValue(formatClassAMI(amis[i]))
	}
	return types.MapValue(types.StringType, elems)
}

// amisFromMap reads node_class.amis back into status.amis order: newest
// creation date first, then image id, as the class resolved them; the key
// breaks the remaining ties (one image serving two requirement sets). A
// malformed value is left out and reported among r's findings: the pool's
// image checks would otherwise run without it.
func amisFromMap(r *reader, v attr.Value, p rules.Path) []ami.AMI {
	type entry struct {
		key string
		a   ami.AMI
	}
	var es []entry
	values := r.strMap(v, p)
	for _, k := range slices.Sorted(maps.Keys(values)) {
		s := values[k]
		a, err := parseClassAMI(s)
		if err != nil {
			r.findings = append(r.findings, classAMIFinding(p.Key(k), k, s, err))
			continue
		}
		a.Architecture, a.Variant = keyParts(k)
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

// classAMIFinding says that node_class.amis[k] = s is not in classAMIForm.
func classAMIFinding(p rules.Path, k, s string, err error) rules.Finding {
	return rules.New(ruleNodeClassAMIInvalid, p,
		"node_class.amis[%q] = %q: %s. The pool reads each image of its class from one line, %s, "+
			"as karpenter_ec2nodeclass.<name>.node_class writes it; without it the pool's image checks and ami_assignments "+
			"would miss the image. Pass the class's node_class, or write e.g. %q.",
		k, s, err, classAMIForm, exampleClassAMI)
}

const exampleClassAMI = "ami-0aaf333b614a08570 | team-eks-node-al2023-x86_64-20251015-r2 | 2025-10-15T09:00:00.000Z | kubernetes.io/arch In amd64"

// createdUnix is a creation date in seconds; a malformed one sorts last,
// as Karpenter treats it as the minimum time.
func createdUnix(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return -1 << 62
	}
	return t.Unix()
}

// assignmentsMapValue is ami_assignments keyed as the class's images (an
// assignment takes the key of the class image it names), one line each:
// "<id> <name>: <families>".
func assignmentsMapValue(class []ami.AMI, as []nodepool.Assignment) (types.Map, diag.Diagnostics) {
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
		elems[k] = types.StringValue(formatAssignment(a))
	}
	return types.MapValue(types.StringType, elems)
}

// formatAssignment is an ami_assignments line, "<id> <name>: <families>":
// an image id holds no space, so the first space ends it, and families
// (lower-case letters and digits) hold no ": ".
func formatAssignment(a nodepool.Assignment) string {
	return a.AMIID + " " + a.AMIName + ": " + strings.Join(a.InstanceFamilies, ", ")
}

// The rules the checks of this file emit.
var (
	ruleNodeClassAMIInvalid = rules.Register(rules.Rule{
		ID: "node-class-amis-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "a node_class.amis value written by hand is not one image on one line",
		Behaviour: "A pool reads its class's images from node_class.amis, one line per image: `<id> | <name> | <creation_date> | <requirements>`, keyed `<architecture>/<variant>` (karpenter_ec2nodeclass.<name>.node_class writes it). Karpenter picks a node's image by the images' requirements, newest creation date first; a value the pool cannot read would drop the image from the architecture and GPU checks and from ami_assignments, so it is an error rather than ignored.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily (status.amis: id, name, requirements; images ordered by creation date); this provider's karpenter_nodepool node_class",
		Bad:       "resource \"karpenter_nodepool\" \"default\" {\n  name = \"default\"\n  node_class = {\n    name = \"team\"\n    amis = {\n      amd64 = \"ami-0aaf333b614a08570 team-node-20251015\"\n    }\n  }\n}\n",
		Good:      "resource \"karpenter_nodepool\" \"default\" {\n  name = \"default\"\n  node_class = {\n    name = \"team\"\n    amis = {\n      amd64 = \"ami-0aaf333b614a08570 | team-node-20251015 | 2025-10-15T09:00:00.000Z | kubernetes.io/arch In amd64\"\n    }\n  }\n}\n",
	})
)
