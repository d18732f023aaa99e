package crd

// Exported for the tests only: the reason of a server error by name, and the
// CRD's properties with their Terraform attributes, which fields_test.go
// (package crd_test) ties to the manifest type and the provider's schema.

import (
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// NoAttribute and Excepted give fields_test.go the exceptions of
// TestEveryCRDPropertyIsModelled.
var NoAttribute = noAttribute

func Excepted(m map[string]string, p string) bool { return excepted(m, p) }

// Reason is the short name of the error type: Invalid, Required,
// NotSupported, TooMany, TooLong, TypeInvalid, Forbidden, Duplicate,
// NotFound or Internal.
func (e Error) Reason() string {
	if r, ok := reasons[e.Type]; ok {
		return r
	}
	return string(e.Type)
}

var reasons = map[field.ErrorType]string{
	field.ErrorTypeInvalid:      "Invalid",
	field.ErrorTypeRequired:     "Required",
	field.ErrorTypeNotSupported: "NotSupported",
	field.ErrorTypeTooMany:      "TooMany",
	field.ErrorTypeTooLong:      "TooLong",
	field.ErrorTypeTypeInvalid:  "TypeInvalid",
	field.ErrorTypeForbidden:    "Forbidden",
	field.ErrorTypeDuplicate:    "Duplicate",
	field.ErrorTypeNotFound:     "NotFound",
	field.ErrorTypeInternal:     "Internal",
}

// Properties lists every property of the kind's served (v1) CRD schema as a
// dotted path from the object root, sorted: "spec.blockDeviceMappings",
// "spec.blockDeviceMappings.ebs", "spec.blockDeviceMappings.ebs.volumeSize".
// List elements add no step (their properties sit under the list's name) and
// string-keyed maps (additionalProperties) are leaves, as their keys are the
// user's.
func Properties(k *Kind) ([]string, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(k.crd, crd); err != nil {
		return nil, fmt.Errorf("parsing the %s CRD: %w", k.name, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != k.Version() || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var out []string
		walkProperties("", v.Schema.OpenAPIV3Schema, &out)
		sort.Strings(out)
		return out, nil
	}
	return nil, fmt.Errorf("the %s CRD has no %s schema", k.name, k.Version())
}

func walkProperties(prefix string, s *apiextensionsv1.JSONSchemaProps, out *[]string) {
	for s.Items != nil && s.Items.Schema != nil {
		s = s.Items.Schema
	}
	for name, child := range s.Properties {
		p := name
		if prefix != "" {
			p = prefix + "." + name
		}
		*out = append(*out, p)
		walkProperties(p, &child, out)
	}
}

// TerraformAttribute is the Terraform attribute (or block) path of a CRD
// property as Properties spells it ("spec.blockDeviceMappings.ebs" →
// "block_device_mappings.ebs"); ok is false when the resource's path table
// has no entry for it. Unlike TerraformPath it never falls back to an
// ancestor, so a property without an attribute is visible.
func (k *Kind) TerraformAttribute(property string) (attr string, ok bool) {
	cur := k.tree
	var steps []string
	for _, name := range strings.Split(property, ".") {
		if cur.dict {
			return "", false
		}
		child := cur.fields[name]
		if child == nil {
			return "", false
		}
		if child.tf != "" {
			steps = append(steps, child.tf)
		}
		cur = child
	}
	return strings.Join(steps, "."), true
}
