package crd_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/provider"
)

// A field of Karpenter v1.14.1's EC2NodeClass and NodePool is declared in
// three places besides the CRD: the manifest type's JSON tag (what is
// rendered), the path table of internal/crd/paths.go (where the API server's
// errors on it land) and the resource schema (what a user writes). The check
// starts from each of them, so a field added to only some fails, named with
// the places it is missing from: a CRD property without a schema attribute (a
// team could not write it), a json tag the CRD lacks (the API server would
// prune it), a schema attribute no CRD property maps to (its value would go
// nowhere). TestEveryCRDPropertyIsModelled (package crd) holds the model and
// the path table below the provider; this adds the schema and the directions
// that start outside the CRD.
func TestSchemaCoversEveryCRDProperty(t *testing.T) {
	for _, k := range kindsWithFields() {
		in := fieldPlacesOf(t, k)
		for _, gap := range in.gaps() {
			t.Error(gap)
		}
		least := 25
		if k.kind == crd.NodeOverlay {
			least = 10 // a small kind: name, weight, price, priceAdjustment, capacity, requirements
		}
		if len(in.model) < least || len(in.schema) < least {
			t.Fatalf("%s: only %d manifest fields and %d schema attributes walked", k.name, len(in.model), len(in.schema))
		}
	}
}

// Removing an EC2NodeClass field from any one place, or adding one to a
// single place, is reported with the field and the places: the check above
// is not vacuous.
func TestSchemaCoversEveryCRDPropertyNamesWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*fieldPlaces)
		want   string
	}{
		{"json tag removed", func(in *fieldPlaces) { in.model = slices.DeleteFunc(in.model, eq("spec.ipPrefixCount")) },
			"EC2NodeClass field spec.ipPrefixCount (ip_prefix_count) is in the CRD, the path table (internal/crd/paths.go), the schema but not in the manifest type (internal/manifest json tag)"},
		{"path table entry removed", func(in *fieldPlaces) { in.table = hide(in.table, "spec.connectionTracking.udpTimeout") },
			"EC2NodeClass field spec.connectionTracking.udpTimeout is in the CRD, the manifest type (internal/manifest json tag) but not in the path table (internal/crd/paths.go) nor the schema"},
		{"schema attribute removed", func(in *fieldPlaces) {
			in.schema = slices.DeleteFunc(in.schema, eq("cpu_options.nested_virtualization"))
		},
			"EC2NodeClass field spec.cpuOptions.nestedVirtualization (cpu_options.nested_virtualization) is in the CRD, the manifest type (internal/manifest json tag), the path table (internal/crd/paths.go) but not in the schema"},
		{"schema attribute added alone", func(in *fieldPlaces) { in.schema = append(in.schema, "kubelet.max_pods_per_node") },
			"EC2NodeClass schema attribute kubelet.max_pods_per_node is not the attribute of any CRD property in the path table"},
		{"json tag added alone", func(in *fieldPlaces) { in.model = append(in.model, "spec.kubelet.maxPodsPerNode") },
			"EC2NodeClass field spec.kubelet.maxPodsPerNode is not a property of the CRD"},
	} {
		in := fieldPlacesOf(t, kindsWithFields()[0])
		c.change(&in)
		gaps := in.gaps()
		if !slices.ContainsFunc(gaps, func(g string) bool { return strings.Contains(g, c.want) }) {
			t.Errorf("%s: want a gap containing %q, got %q", c.name, c.want, gaps)
		}
	}
}

// kindFields is a resource and what declares its fields.
type kindFields struct {
	name  string
	kind  *crd.Kind
	res   resource.Resource
	model any
	// notSpec are the schema's attributes and blocks that are not CRD
	// fields, with why.
	notSpec map[string]string
}

func kindsWithFields() []kindFields {
	return []kindFields{
		{"EC2NodeClass", crd.EC2NodeClass, provider.NewEC2NodeClassResource(), manifest.EC2NodeClass{}, map[string]string{
			"metadata":              "metadata.labels and metadata.annotations (see objectMetadata)",
			"id":                    "the resource id (the name)",
			"pin_amis":              "decides how amiSelectorTerms are written",
			"bootstrap":             "rendered into spec.userData (Custom)",
			"acknowledged_warnings": "the provider's own diagnostics",
			"manifest":              "the rendered object",
			"amis":                  "predicted status.amis",
			"node_class":            "what pools are given",
			"subnets":               "predicted status.subnets",
			"security_groups":       "predicted status.securityGroups",
			"capacity_reservations": "predicted status.capacityReservations",
			"status_conditions":     "predicted status.conditions",
			"drift_hash":            "the predicted karpenter.k8s.aws/ec2nodeclass-hash annotation",
			"drift_hash_version":    "the predicted karpenter.k8s.aws/ec2nodeclass-hash-version annotation",
		}},
		{"NodePool", crd.NodePool, provider.NewNodePoolResource(), manifest.NodePool{}, map[string]string{
			"metadata":              "metadata.labels and metadata.annotations (see objectMetadata)",
			"id":                    "the resource id (the name)",
			"acknowledged_warnings": "the provider's own diagnostics",
			"manifest":              "the rendered object",
			"ami_assignments":       "which class image each admitted family gets",
			"instance_families":     "the families the requirements admit",
			"drift_hash":            "the predicted karpenter.sh/nodepool-hash annotation",
			"drift_hash_version":    "the predicted karpenter.sh/nodepool-hash-version annotation",
			// node_class is nodeClassRef (group, kind, name) and the facts of
			// the class the pool is checked against.
			"node_class.ami_family":        "a class fact",
			"node_class.amis":              "a class fact",
			"node_class.registered_taints": "a class fact",
			"node_class.zones":             "a class fact",
			// Tombstones: fields of older APIs, accepted only to fail with
			// where v1 moved them (internal/migration).
			"disruption.expire_after":   "v1beta1 tombstone (v1beta1-expire-after-in-disruption)",
			"kubelet":                   "v1beta1 tombstone (v1beta1-kubelet-on-nodepool)",
			"ttl_seconds_after_empty":   "v1alpha5 tombstone (v1alpha5-provisioner-field)",
			"ttl_seconds_until_expired": "v1alpha5 tombstone (v1alpha5-provisioner-field)",
		}},
		{"NodeOverlay", crd.NodeOverlay, provider.NewNodeOverlayResource(), nodeoverlay.Manifest{}, map[string]string{
			"manifest": "the rendered object",
		}},
	}
}

// objectMetadata is the manifest's metadata beyond the name, which is not
// in the CRDs' schemas: internal/objectmeta validates it with the metadata
// block's paths. crd.NoAttribute has the CRD's own exceptions.
var objectMetadata = map[string]string{
	"metadata.labels":      "object metadata, validated by internal/objectmeta",
	"metadata.annotations": "object metadata, validated by internal/objectmeta",
}

func notUserField(p string) bool {
	return crd.Excepted(crd.NoAttribute, p) || crd.Excepted(objectMetadata, p)
}

// fieldPlaces are a kind's fields as each place declares them.
type fieldPlaces struct {
	kind string
	// model: the manifest type's JSON paths (list elements add no step).
	model []string
	// crd: the CRD's properties.
	crd []string
	// table: a CRD path's Terraform attribute ("" for a level the resource
	// flattens), false without an entry.
	table func(string) (string, bool)
	// schema: the attribute and block paths of the resource, and notSpec
	// those that are not CRD fields.
	schema  []string
	notSpec map[string]string
}

func fieldPlacesOf(t *testing.T, k kindFields) fieldPlaces {
	t.Helper()
	props, err := crd.Properties(k.kind)
	if err != nil {
		t.Fatal(err)
	}
	var resp resource.SchemaResponse
	k.res.Schema(context.Background(), resource.SchemaRequest{}, &resp)
	return fieldPlaces{
		kind:  k.name,
		model: jsonPaths("", reflect.TypeOf(k.model)),
		// The CRDs leave metadata to the API server's ObjectMeta; its name is
		// a field like the spec's.
		crd:     append(props, "metadata.name"),
		table:   k.kind.TerraformAttribute,
		schema:  schemaPaths("", resp.Schema.Attributes, resp.Schema.Blocks),
		notSpec: k.notSpec,
	}
}

// gaps names each field some place lacks, and the places.
func (in fieldPlaces) gaps() []string {
	var out []string
	inModel, inSchema, inCRD := pathSet(in.model), pathSet(in.schema), pathSet(in.crd)
	reached := map[string]bool{} // schema attributes of a CRD property
	for _, p := range in.crd {
		if notUserField(p) {
			continue
		}
		attr, inTable := in.table(p)
		if inTable && attr == "" {
			continue // spec, metadata: levels the resource flattens
		}
		reached[attr] = inTable
		var has, lacks []string
		for _, place := range []struct {
			ok   bool
			name string
		}{
			{inModel[p], "the manifest type (internal/manifest json tag)"},
			{inTable, "the path table (internal/crd/paths.go)"},
			{inTable && inSchema[attr], "the schema"},
		} {
			if place.ok {
				has = append(has, place.name)
			} else {
				lacks = append(lacks, place.name)
			}
		}
		if len(lacks) == 0 {
			continue
		}
		if inTable {
			p += " (" + attr + ")"
		}
		out = append(out, fmt.Sprintf("%s field %s is in %s but not in %s",
			in.kind, p, strings.Join(append([]string{"the CRD"}, has...), ", "), strings.Join(lacks, " nor ")))
	}
	for _, p := range in.model {
		if !inCRD[p] && !notUserField(p) {
			out = append(out, fmt.Sprintf("%s field %s is not a property of the CRD Karpenter v1.14.1 installs, so the API server "+
				"prunes it: fix its json tag in internal/manifest", in.kind, p))
		}
	}
	for _, s := range in.schema {
		if !reached[s] && !crd.Excepted(in.notSpec, s) {
			out = append(out, fmt.Sprintf("%s schema attribute %s is not the attribute of any CRD property in the path table "+
				"(internal/crd/paths.go): add the field there and to the manifest type (internal/manifest json tag), or list the "+
				"attribute in kindsWithFields with why", in.kind, s))
		}
	}
	slices.Sort(out)
	return out
}

func pathSet(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// jsonPaths lists the JSON paths of t's fields as crd.Properties lists the
// CRD's: list elements add no step, maps are leaves.
func jsonPaths(prefix string, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		p := joinPath(prefix, name)
		out = append(out, p)
		out = append(out, jsonPaths(p, t.Field(i).Type)...)
	}
	return out
}

// schemaPaths lists the attribute and block paths of a schema; list and
// single nesting add no step, as in the path table.
func schemaPaths(prefix string, attrs map[string]schema.Attribute, blocks map[string]schema.Block) []string {
	var out []string
	for name, a := range attrs {
		p := joinPath(prefix, name)
		out = append(out, p)
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			out = append(out, schemaPaths(p, a.Attributes, nil)...)
		case schema.ListNestedAttribute:
			out = append(out, schemaPaths(p, a.NestedObject.Attributes, nil)...)
		case schema.MapNestedAttribute:
			out = append(out, schemaPaths(p, a.NestedObject.Attributes, nil)...)
		}
	}
	for name, b := range blocks {
		p := joinPath(prefix, name)
		out = append(out, p)
		switch b := b.(type) {
		case schema.SingleNestedBlock:
			out = append(out, schemaPaths(p, b.Attributes, b.Blocks)...)
		case schema.ListNestedBlock:
			out = append(out, schemaPaths(p, b.NestedObject.Attributes, b.NestedObject.Blocks)...)
		}
	}
	return out
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func eq(s string) func(string) bool { return func(x string) bool { return x == s } }

// hide is table without an entry for p.
func hide(table func(string) (string, bool), p string) func(string) (string, bool) {
	return func(q string) (string, bool) {
		if q == p {
			return "", false
		}
		return table(q)
	}
}
