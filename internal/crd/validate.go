package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aws/karpenter-provider-aws/pkg/apis"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
)

// Kind is one Karpenter CRD kind the provider renders, with its validators
// built on first use.
type Kind struct {
	name string
	crd  []byte
	tree *node
	// version is the served version validated; "" is v1.
	version string

	once sync.Once
	c    *compiled
	err  error
}

// The kinds, validated against the CRDs of KarpenterVersion. NodeOverlay
// (karpenter.sh/v1alpha1, behind Karpenter's NodeOverlay feature gate) is
// the CRD karpenter-provider-aws embeds next to the others.
var (
	EC2NodeClass = &Kind{name: "EC2NodeClass", crd: apis.EC2NodeClassCRD, tree: ec2NodeClassTree}
	NodePool     = &Kind{name: "NodePool", crd: apis.NodePoolCRD, tree: nodePoolTree}
	NodeOverlay  = &Kind{name: "NodeOverlay", crd: apis.NodeOverlayCRD, tree: nodeOverlayTree, version: "v1alpha1"}
)

// Name is the kind, "EC2NodeClass", "NodePool" or "NodeOverlay".
func (k *Kind) Name() string { return k.name }

// Version is the served version validated: "v1", or "v1alpha1" for
// NodeOverlay.
func (k *Kind) Version() string {
	if k.version == "" {
		return servedVersion
	}
	return k.version
}

// Prepare builds the validators now rather than on the first Validate, e.g.
// to warm up off the critical path. It is safe to call any number of times.
func (k *Kind) Prepare() error {
	k.once.Do(func() {
		k.c, k.err = compile(k.crd, k.Version())
		if k.err == nil && k.c.kind != k.name {
			k.c, k.err = nil, fmt.Errorf("CRD defines kind %s, want %s", k.c.kind, k.name)
		}
	})
	return k.err
}

// Result is what the API server would make of a create.
type Result struct {
	// Object is the object as the server would store it: defaulted, unknown
	// fields and non-nullable nulls pruned. The caller's object is not
	// modified. It is the normalized input when TypeMeta is wrong.
	Object map[string]any
	// Errors are the reasons the server would reject the object, in the
	// server's order; empty means it would be accepted.
	Errors []Error
	// Unknown are the CRD paths of fields the server would drop (or, with
	// kubectl's strict field validation, reject as unknown), sorted.
	Unknown []string
}

// Validate runs obj (as manifest.Object produces it) through the API
// server's create path for this kind: defaulting, pruning, metadata, OpenAPI
// and CEL validation. The error is for objects that are not JSON and for a
// CRD that does not build, never for a rejected object.
func (k *Kind) Validate(ctx context.Context, obj map[string]any) (Result, error) {
	if err := k.Prepare(); err != nil {
		return Result{}, fmt.Errorf("%s CRD: %w", k.name, err)
	}
	c := k.c
	u, err := normalize(obj)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", k.name, err)
	}
	res := Result{Object: u}

	// customResourceValidator.ValidateTypeMeta: the server reports only
	// these when they are wrong, since nothing else applies.
	if errs := validateTypeMeta(u, c); len(errs) > 0 {
		res.Errors = fromFieldErrors(errs)
		return res, nil
	}
	if c.hasStatus {
		delete(u, "status") // PrepareForCreate: a create cannot set status
	}

	// Decoding: the versioning codec defaults, then the schema coercer
	// prunes (customresource_handler.go unstructuredSchemaCoercer.apply).
	structuraldefaulting.Default(u, c.structural)
	metaUnknown, err := pruneMetadata(u)
	if err != nil {
		res.Errors = []Error{fromFieldError(field.Invalid(field.NewPath("metadata"), u["metadata"], err.Error()))}
		return res, nil
	}
	res.Unknown = append(res.Unknown, metaUnknown...)
	res.Unknown = append(res.Unknown, pruning.PruneWithOptions(u, c.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, c.structural)
	// Embedded resources (x-kubernetes-embedded-resource): none in
	// Karpenter's CRDs today; kept so a future one is handled as the server
	// does.
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u, c.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		res.Errors = []Error{fromFieldError(ferr)}
		return res, nil
	}
	res.Unknown = append(res.Unknown, paths...)
	sort.Strings(res.Unknown)
	if err := beforeCreate(u, c.namespaced); err != nil {
		res.Errors = []Error{fromFieldError(field.Invalid(field.NewPath("metadata"), u["metadata"], err.Error()))}
		return res, nil
	}

	// Validation: customResourceStrategy.Validate.
	var errs field.ErrorList
	errs = append(errs, metavalidation.ValidateObjectMetaAccessor(&unstructured.Unstructured{Object: u},
		c.namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, c.schema)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u, c.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u)...)
	if c.cel != nil {
		if blocking(errs) {
			// CEL programs assume a schema-valid object (types, and the
			// limits their cost estimates rest on), so the server skips them.
			errs = append(errs, field.Invalid(nil, nil, RulesNotChecked))
		} else {
			// oldObj nil: a create. Transition rules (oldSelf) are skipped.
			celErrs, _ := c.cel.Validate(ctx, nil, c.structural, u, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, celErrs...)
		}
	}
	res.Errors = fromFieldErrors(errs)
	return res, nil
}

// normalize deep-copies obj into the form the server's JSON decoder
// produces: whole numbers as int64, other numbers float64, no Go-typed
// slices or maps. Integer-typed schema checks and CEL need the int64s.
func normalize(obj map[string]any) (map[string]any, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("object is not JSON: %w", err)
	}
	var u map[string]any
	if err := utiljson.Unmarshal(j, &u); err != nil {
		return nil, fmt.Errorf("object is not JSON: %w", err)
	}
	return u, nil
}

func validateTypeMeta(u map[string]any, c *compiled) field.ErrorList {
	var errs field.ErrorList
	if kind, _ := u["kind"].(string); kind != c.kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u["kind"], "must be "+c.kind))
	}
	if av, _ := u["apiVersion"].(string); av != c.apiVersion() {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u["apiVersion"], "must be "+c.apiVersion()))
	}
	return errs
}

// pruneMetadata drops the metadata fields ObjectMeta does not know and
// returns their paths. The server decodes metadata into ObjectMeta and writes
// it back; deleting the unknown keys instead keeps the rendered metadata
// exactly as written (no creationTimestamp: null).
func pruneMetadata(u map[string]any) ([]string, error) {
	_, _, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	if md, ok := u["metadata"].(map[string]any); ok {
		for _, p := range unknown {
			// Top-level metadata keys only: nested ones (managedFields[0].x)
			// never come from a rendered manifest.
			if key, ok := strings.CutPrefix(p, "metadata."); ok && !strings.ContainsAny(key, ".[") {
				delete(md, key)
			}
		}
	}
	return unknown, nil
}

// beforeCreate normalizes the metadata of a decoded object as the API
// server does between decoding a create and validating it, with the
// server's own functions (those that change what validation sees): the handler wipes the system fields and makes
// the namespace the request's (k8s.io/apiserver pkg/endpoints/handlers
// create.go), the store fills the system fields and generates the name
// from generateName (pkg/registry/generic/registry/store.go create), and
// BeforeCreate sets the namespace the scope expects and runs the
// strategy's PrepareForCreate, which sets generation 1
// (apiextensions-apiserver pkg/registry/customresource/strategy.go). So a
// NodePool or EC2NodeClass written with a metadata.namespace (both kinds
// are cluster-scoped, and kubectl sends them without one) is stored
// without it, not rejected.
func beforeCreate(u map[string]any, namespaced bool) error {
	md, ok := u["metadata"].(map[string]any)
	if !ok {
		return nil // ObjectMeta validation reports the missing name
	}
	obj := &unstructured.Unstructured{Object: u}
	rest.WipeObjectMetaSystemFields(obj)
	// The request of a cluster-scoped kind names no namespace.
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(metav1.NamespaceNone, namespaced), obj); err != nil {
		return err
	}
	if obj.GetGenerateName() != "" && obj.GetName() == "" {
		obj.SetName(names.SimpleNameGenerator.GenerateName(obj.GetGenerateName()))
	}
	if _, ok := md["generation"]; ok {
		// Set on every create; left out when not written, so Object stays
		// the manifest as written plus the CRD's defaults.
		obj.SetGeneration(1)
	}
	return nil
}

// blocking mirrors strategy.go hasBlockingErr.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong,
			field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}
