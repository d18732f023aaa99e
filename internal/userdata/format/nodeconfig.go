package format

import "sigs.k8s.io/yaml"

// IsNodeConfigDocument is Karpenter's test for non-MIME AL2023 userData:
// anything that unmarshals into a map (YAML or JSON, including a document
// of comments only) becomes a NodeConfig part.
func IsNodeConfigDocument(s string) bool {
	return yaml.Unmarshal([]byte(s), &map[string]any{}) == nil
}

// IsNodeConfigKind reports whether ud is a YAML/JSON NodeConfig document.
func IsNodeConfigKind(ud string) bool {
	var d struct {
		Kind string `json:"kind"`
	}
	return yaml.Unmarshal([]byte(ud), &d) == nil && d.Kind == "NodeConfig"
}
