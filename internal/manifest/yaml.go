package manifest

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// API versions and kinds.
const (
	EC2NodeClassAPIVersion = "karpenter.k8s.aws/v1"
	EC2NodeClassKind       = "EC2NodeClass"
	NodePoolAPIVersion     = "karpenter.sh/v1"
	NodePoolKind           = "NodePool"
)

// YAML renders an object as YAML with sorted keys and no nulls: the same
// object always renders to the same bytes, so plans show real diffs only.
func YAML(obj any) (string, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("rendering manifest: %w", err)
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return "", fmt.Errorf("rendering manifest: %w", err)
	}
	return string(y), nil
}

// Object converts a typed object to the untyped form the CRD validator and
// YAML both start from.
func Object(obj any) (map[string]any, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return m, nil
}
