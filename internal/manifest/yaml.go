package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	yamlv2 "go.yaml.in/yaml/v2"
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
//
// The bytes are sigs.k8s.io/yaml's (JSON, then JSONToYAML). JSONToYAML
// parses the JSON with a YAML parser, the costliest step of rendering a
// manifest; yamlValue builds the same value with the JSON decoder instead
// and the same YAML encoder writes it. Where the YAML parser reads JSON
// differently from a JSON decoder (bytes it refuses, keys too long for it)
// JSONToYAML itself is used, so the output is identical in every case.
func YAML(obj any) (string, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("rendering manifest: %w", err)
	}
	if v, ok := yamlValue(j); ok {
		if y, err := yamlv2.Marshal(v); err == nil {
			return string(y), nil
		}
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return "", fmt.Errorf("rendering manifest: %w", err)
	}
	return string(y), nil
}

// maxYAMLKey is below the 1,024 characters the YAML scanner allows a flow
// mapping's key; past it JSONToYAML's parser reads the key differently.
const maxYAMLKey = 1000

// yamlValue decodes JSON into what go-yaml v2 makes of it (as JSONToYAML
// unmarshals it): numbers as int, uint64 or float64 by go-yaml's resolver,
// strings, bools, nil, []any and maps. ok is false for input the YAML
// parser might read otherwise: bytes outside printable ASCII (it rejects
// some non-ASCII characters) and long keys.
func yamlValue(j []byte) (any, bool) {
	for _, c := range j {
		if c >= 0x7f || (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
			return nil, false
		}
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return resolveYAML(v)
}

func resolveYAML(v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if len(k) > maxYAMLKey {
				return nil, false
			}
			r, ok := resolveYAML(e)
			if !ok {
				return nil, false
			}
			v[k] = r
		}
		return v, true
	case []any:
		for i, e := range v {
			r, ok := resolveYAML(e)
			if !ok {
				return nil, false
			}
			v[i] = r
		}
		return v, true
	case json.Number:
		return resolveNumber(string(v)), true
	default: // string, bool, nil
		return v, true
	}
}

// resolveNumber is go-yaml v2's resolve of a plain scalar, for the forms a
// JSON number takes (no underscores, timestamps, prefixes or leading
// zeros): an int when it parses as one, else a uint64, else a float64, else
// (out of a float64's range) the text.
func resolveNumber(s string) any {
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		if i == int64(int(i)) {
			return int(i)
		}
		return i
	}
	if u, err := strconv.ParseUint(s, 0, 64); err == nil {
		return u
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
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
