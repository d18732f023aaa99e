package drift

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift/internal/shape"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// Upstream fields the hash shape leaves out because the manifest model
// cannot set them (so they are always zero and skipped). When a Karpenter
// upgrade adds a field, this test fails until the field is either added to
// the shape (and the manifest) or listed here.
var unsettable = map[string][]string{
	"EC2NodeClassSpec":       {},
	"BlockDevice":            {},
	"PlacementGroupSelector": {},
	"NetworkInterface":       {},
	"ConnectionTracking":     {},
	"CPUOptions":             {},
	"NodeClaimTemplateSpec":  {},
	"NodeClassReference":     {},
	"ObjectMeta":             {},
	"NodeClaimTemplate":      {},
	"KubeletConfiguration":   {},
	"BlockDeviceMapping":     {},
	"MetadataOptions":        {},
	"NillableDuration":       {},
}

var rawJSON = reflect.TypeOf(json.RawMessage{})

// TestShapeMatchesKarpenter compares the hash shape with Karpenter's types
// field by field: the same type names, field names in the same order, the
// same hash and json tags, the same kinds and integer widths. The equality
// tests prove the same thing on values; this catches a field no table case
// sets yet.
func TestShapeMatchesKarpenter(t *testing.T) {
	seen := map[string]bool{}
	compareShape(t, reflect.TypeOf(shape.EC2NodeClassSpec{}), reflect.TypeOf(awsv1.EC2NodeClassSpec{}), "EC2NodeClassSpec", seen)
	compareShape(t, reflect.TypeOf(shape.NodeClaimTemplate{}), reflect.TypeOf(karpv1.NodeClaimTemplate{}), "NodeClaimTemplate", seen)
	for name := range unsettable {
		if !seen[name] {
			t.Errorf("struct %s was never compared", name)
		}
	}
}

func compareShape(t *testing.T, ours, theirs reflect.Type, path string, seen map[string]bool) {
	t.Helper()
	if ours == theirs {
		return // a Kubernetes library type used as it is
	}
	if ours.Kind() != theirs.Kind() {
		t.Errorf("%s: kind %s, Karpenter's is %s", path, ours.Kind(), theirs.Kind())
		return
	}
	switch ours.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if ours.Kind() == reflect.Map {
			compareShape(t, ours.Key(), theirs.Key(), path+"[key]", seen)
		}
		compareShape(t, ours.Elem(), theirs.Elem(), path+"[]", seen)
		return
	case reflect.Struct:
	default:
		// Named string and integer types hash by kind; integers by width.
		if ours.Size() != theirs.Size() {
			t.Errorf("%s: %s, Karpenter's is %s", path, ours, theirs)
		}
		return
	}
	if ours.Name() != theirs.Name() {
		t.Errorf("%s: struct named %s, Karpenter's is %s (hashstructure hashes the name)", path, ours.Name(), theirs.Name())
	}
	seen[ours.Name()] = true
	left := map[string]bool{}
	for _, n := range unsettable[ours.Name()] {
		left[n] = true
	}
	last := -1
	for i := 0; i < ours.NumField(); i++ {
		of := ours.Field(i)
		tf, ok := theirs.FieldByName(of.Name)
		if !ok || len(tf.Index) != 1 {
			t.Errorf("%s.%s: Karpenter has no such field", path, of.Name)
			continue
		}
		if tf.Index[0] < last {
			t.Errorf("%s.%s: out of Karpenter's field order (hashstructure's result depends on it)", path, of.Name)
		}
		last = tf.Index[0]
		if of.Tag.Get("hash") != tf.Tag.Get("hash") || of.Tag.Get("json") != tf.Tag.Get("json") || of.Anonymous != tf.Anonymous {
			t.Errorf("%s.%s: tags %q, Karpenter's are %q", path, of.Name, of.Tag, tf.Tag)
		}
		if of.Type == rawJSON {
			if of.Tag.Get("hash") != "ignore" {
				t.Errorf("%s.%s: raw JSON stand-in for a hashed field", path, of.Name)
			}
			continue
		}
		compareShape(t, of.Type, tf.Type, path+"."+of.Name, seen)
	}
	for i := 0; i < theirs.NumField(); i++ {
		tf := theirs.Field(i)
		if _, ok := ours.FieldByName(tf.Name); ok || !tf.IsExported() {
			continue
		}
		if !left[tf.Name] && tf.Tag.Get("hash") != "ignore" {
			t.Errorf("%s.%s: Karpenter hashes this field and the shape lacks it; add it to the shape and the manifest model, or list it as unsettable", path, tf.Name)
		}
		delete(left, tf.Name)
	}
	for n := range left {
		t.Errorf("%s.%s is listed as unsettable but Karpenter has no such field", path, n)
	}
}

// leafPaths lists the scalar, map and list-of-scalar fields of a manifest
// type, by Go field path.
func leafPaths(t reflect.Type, prefix string, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		out[prefix] = false
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		leafPaths(f.Type, strings.TrimPrefix(prefix+"."+f.Name, "."), out)
	}
}

// markSet marks the leaf paths v sets to a non-zero value.
func markSet(v reflect.Value, prefix string, out map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			if v.Elem().Kind() != reflect.Struct {
				out[prefix] = true
			}
			markSet(v.Elem(), prefix, out)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Struct {
			if v.Len() > 0 {
				out[prefix] = true
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			markSet(v.Index(i), prefix, out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			markSet(v.Field(i), strings.TrimPrefix(prefix+"."+v.Type().Field(i).Name, "."), out)
		}
	default:
		if !v.IsZero() {
			out[prefix] = true
		}
	}
}

func TestTablesCoverEveryField(t *testing.T) {
	check := func(typ reflect.Type, values []reflect.Value) {
		paths := map[string]bool{}
		leafPaths(typ, "", paths)
		for _, v := range values {
			markSet(v, "", paths)
		}
		var missing []string
		for p, set := range paths {
			if !set {
				missing = append(missing, p)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s: no table case sets %v", typ.Name(), missing)
		}
	}
	var cv, pv []reflect.Value
	for _, c := range classCases() {
		cv = append(cv, reflect.ValueOf(c.spec))
	}
	for _, c := range poolCases() {
		pv = append(pv, reflect.ValueOf(c.spec))
	}
	check(reflect.TypeOf(manifest.EC2NodeClassSpec{}), cv)
	check(reflect.TypeOf(manifest.NodePoolSpec{}), pv)
}
