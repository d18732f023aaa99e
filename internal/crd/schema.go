package crd

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// servedVersion is the version this provider renders of the v1 kinds. It is
// picked by name, not position, so a future CRD that lists v1beta1 first (or
// adds v2) still validates against v1. NodeOverlay is served as v1alpha1 only
// (Kind.version).
const servedVersion = "v1"

// compiled is what the API server derives from one CRD version when it starts
// serving it (customresource_handler.go getOrCreateServingInfoFor), built the
// same way so that defaults, pruning and messages are the server's.
type compiled struct {
	group, version, kind string
	// structural drives defaulting, pruning, list-type and CEL validation.
	// Its defaults are pruned, as the server does, so a default can never
	// re-introduce an unknown field.
	structural *structuralschema.Structural
	// schema is the OpenAPI validator (types, patterns, enums, limits).
	schema apiservervalidation.SchemaValidator
	// cel evaluates x-kubernetes-validations; nil when the version has none.
	cel *cel.Validator
	// hasStatus mirrors the status subresource: a create drops status.
	hasStatus bool
	// namespaced is the CRD scope; Karpenter's kinds are cluster-scoped.
	namespaced bool
}

// compile builds the validators for one served version of a CRD given as
// YAML.
func compile(crdYAML []byte, servedVersion string) (*compiled, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(crdYAML, crd); err != nil {
		return nil, fmt.Errorf("parsing CRD: %w", err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)

	var v *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == servedVersion {
			v = &crd.Spec.Versions[i]
		}
	}
	if v == nil || !v.Served {
		return nil, fmt.Errorf("CRD %s does not serve version %s", crd.Name, servedVersion)
	}
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("CRD %s version %s has no schema", crd.Name, servedVersion)
	}

	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
		return nil, fmt.Errorf("converting CRD %s schema: %w", crd.Name, err)
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("CRD %s schema is not structural: %w", crd.Name, err)
	}
	// The server deep-copies before pruning defaults because NewStructural
	// shares default values with internal, which the schema validator uses.
	ss = ss.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(ss); err != nil {
		return nil, fmt.Errorf("CRD %s: pruning defaults: %w", crd.Name, err)
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return nil, fmt.Errorf("CRD %s: building schema validator: %w", crd.Name, err)
	}
	return &compiled{
		group:      crd.Spec.Group,
		version:    v.Name,
		kind:       crd.Spec.Names.Kind,
		structural: ss,
		schema:     sv,
		// Compiles every rule now; evaluation later only runs programs.
		cel:        cel.NewValidator(ss, true, celconfig.PerCallLimit),
		hasStatus:  v.Subresources != nil && v.Subresources.Status != nil,
		namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
	}, nil
}

// apiVersion is group/version as objects spell it.
func (c *compiled) apiVersion() string { return c.group + "/" + c.version }
