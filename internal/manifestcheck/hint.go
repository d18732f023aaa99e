package manifestcheck

import (
	"reflect"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

// fieldHint is a did-you-mean for an unknown field at CRD path p: the
// nearest sibling field of the project's manifest model, which declares
// the CRD's fields with their JSON names.
func fieldHint(k *crd.Kind, p string) string {
	t := reflect.TypeOf(manifest.EC2NodeClass{})
	if k == crd.NodePool {
		t = reflect.TypeOf(manifest.NodePool{})
	}
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return suggest.Hint(p, jsonFields(t))
	}
	t = typeAt(t, p[:i])
	if t == nil {
		return ""
	}
	return suggest.Hint(p[i+1:], jsonFields(t))
}

// typeAt walks a model type along a CRD path ("spec.template.spec",
// "spec.amiSelectorTerms[0]"); nil when the path leaves the model.
func typeAt(t reflect.Type, p string) reflect.Type {
	for _, seg := range strings.Split(p, ".") {
		name, _, _ := strings.Cut(seg, "[")
		t = deref(t)
		if t.Kind() != reflect.Struct {
			return nil
		}
		var next reflect.Type
		for j := 0; j < t.NumField(); j++ {
			if jsonName(t.Field(j)) == name {
				next = t.Field(j).Type
			}
		}
		if next == nil {
			return nil
		}
		t = next
		if strings.Contains(seg, "[") {
			t = deref(t)
			if t.Kind() != reflect.Slice {
				return nil
			}
			t = t.Elem()
		}
	}
	return t
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func jsonFields(t reflect.Type) []string {
	t = deref(t)
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for j := 0; j < t.NumField(); j++ {
		if n := jsonName(t.Field(j)); n != "" && n != "-" {
			out = append(out, n)
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
