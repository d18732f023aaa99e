package manifestcheck

import (
	"fmt"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// DecodeNodePool reads input that holds one NodePool (YAML or JSON) into
// the manifest model, for callers that use the object rather than check
// it. Findings report a document that does not parse or is no v1 Karpenter
// kind (the rules Check reports them with); err says why input is not one
// NodePool otherwise (no document, several, another kind, a field of the
// wrong type).
func DecodeNodePool(input string) (manifest.NodePool, []Finding, error) {
	raw, fs, err := one(input, manifest.NodePoolKind)
	if raw == nil {
		return manifest.NodePool{}, fs, err
	}
	m, err := decodePool(raw)
	return m, nil, err
}

// DecodeEC2NodeClass is DecodeNodePool for an EC2NodeClass.
func DecodeEC2NodeClass(input string) (manifest.EC2NodeClass, []Finding, error) {
	raw, fs, err := one(input, manifest.EC2NodeClassKind)
	if raw == nil {
		return manifest.EC2NodeClass{}, fs, err
	}
	m, err := decodeClass(raw)
	return m, nil, err
}

// one returns the JSON of input's single document when it is of kind.
func one(input, kind string) ([]byte, []Finding, error) {
	docs := split(input)
	if len(docs) != 1 {
		return nil, nil, fmt.Errorf("the input holds %d documents; give exactly one: %s", len(docs), withArticle(kind))
	}
	obj, raw, malformed := decodeOne(docs[0])
	if malformed != nil {
		return nil, []Finding{*malformed}, nil
	}
	got, f, ok := classify(obj)
	switch {
	case f != nil:
		return nil, []Finding{*f}, nil
	case !ok:
		_, _, k := typeMeta(obj)
		return nil, nil, fmt.Errorf("the document is of kind %q, not %s", k, withArticle(kind))
	case got != kind:
		return nil, nil, fmt.Errorf("the document is %s, not %s", withArticle(got), withArticle(kind))
	}
	return raw, nil, nil
}

// decodeOne decodes a document; one that does not parse is a finding.
func decodeOne(d document) (map[string]any, []byte, *Finding) {
	obj, raw, err := decode(d)
	if err != nil {
		return nil, nil, &Finding{Rule: ruleMalformed, Severity: ruleMalformed.Severity,
			Message: err.Error() + ". kubectl, Helm and Argo CD refuse the document."}
	}
	return obj, raw, nil
}

func withArticle(kind string) string {
	if kind == manifest.EC2NodeClassKind {
		return "an " + kind
	}
	return "a " + kind
}

// The rules the checks of this file emit.
var (
	ruleMalformed = rules.Register(rules.Rule{
		ID: "manifest-malformed", Severity: rules.Error, Category: Category,
		Title:     "the document is not a YAML or JSON object",
		Behaviour: "`kubectl apply`, Helm and Argo CD decode each document of a stream as a Kubernetes object: a document that is not YAML (a tab in the indentation, an unclosed quote, an unrendered Helm template), that repeats a key in one mapping (kubectl's strict decoding: `mapping key \"x\" already defined`), or that is a list or a scalar instead of an object is refused before any object reaches the API server, and nothing of the stream after it is applied by kubectl. validate_manifest reports it once for the document, with the line in the whole input, and checks the other documents.",
		Source:    "sigs.k8s.io/yaml YAMLToJSONStrict (what kubectl and the API server decode YAML with); k8s.io/apimachinery pkg/util/yaml NewYAMLReader (the `---` document separator)",
		Bad:       example(nodePool("      requirements: []\n      requirements: []\n")),
		Good:      example(nodePool("      requirements: []\n" + nodeClassRef)),
	})
)
