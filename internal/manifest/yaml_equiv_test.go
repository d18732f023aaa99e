package manifest

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// yamlSeeds are JSON documents where a JSON decoder and go-yaml's parser
// could disagree: integer and float edges, exponents, negative zero,
// numbers past int64 and uint64, strings that look like YAML scalars,
// escapes, non-ASCII and control characters, a key past the YAML scanner's
// 1,024-character limit.
var yamlSeeds = []string{
	`{"a":0,"b":-0,"c":1,"d":-1,"e":9223372036854775807,"f":-9223372036854775808,"g":9223372036854775808,"h":18446744073709551615,"i":18446744073709551616}`,
	`{"a":0.5,"b":1e5,"c":1E-7,"d":1.0,"e":1e21,"f":123456789012345678901234567890,"g":1e400,"h":-1e-400,"i":5e-324}`,
	`{"s":["yes","no","on","off","~","null","true","1","1.5","0x10","0o7","0b1","1_000",".inf","-.nan","<<","2024-01-02","12:30:45"]}`,
	`{"s":"a\u2028b\u2029c\u003cd\u003ee\u0026f","t":"tab\there","n":"line\nbreak","q":"\"quoted\" 'single'","e":""}`,
	`{"u":"caf\u00e9","r":"réglé","z":"\ufffd","bom":"\ufeffx","del":"\u007f","c1":"\u0085\u0080","ffff":"\uffff"}`,
	`{"x":{"y":{"z":[[],{},[null],[1,"1",true]]}},"empty":{},"list":[],"nil":null}`,
	`{"` + strings.Repeat("k", 1100) + `":"long key","k":"` + strings.Repeat("v", 5000) + `"}`,
	`{"labels":{"karpenter.sh/nodepool":"default","team":"a: b","hash":"#x","star":"*","amp":"&y","bang":"!z","pct":"%","at":"@a","tick":"` + "`" + `b"}}`,
	`{"multi":"first line\nsecond line\n","spaces":"  lead and trail  ","colon":"a:b","dash":"- x","q":"?"}`,
}

// YAML gives the bytes (or the error) sigs.k8s.io/yaml's JSONToYAML gives
// for the same object: the typed manifests, the seeds and what the fuzzer
// derives from them.
func FuzzYAMLMatchesJSONToYAML(f *testing.F) {
	for _, s := range yamlSeeds {
		f.Add(s)
	}
	f.Fuzz(compareDoc)
}

// compareDoc compares the document's value as the JSON decoder gives it
// (float64s) and with its numbers kept as written (json.Number).
func compareDoc(t *testing.T, doc string) {
	t.Helper()
	var obj any
	if json.Unmarshal([]byte(doc), &obj) == nil {
		compareYAML(t, obj)
	}
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var num any
	if dec.Decode(&num) == nil {
		compareYAML(t, num)
	}
}

func TestYAMLMatchesJSONToYAMLOnManifests(t *testing.T) {
	one, big := int32(1), math.MaxInt
	zero := "0s"
	for _, obj := range []any{
		NodePool{APIVersion: NodePoolAPIVersion, Kind: NodePoolKind, Metadata: ObjectMeta{Name: "default"},
			Spec: NodePoolSpec{Weight: &one, Disruption: &Disruption{ConsolidateAfter: &zero},
				Limits: map[string]string{"cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": "8"},
				Template: NodeClaimTemplate{Spec: NodeClaimTemplateSpec{
					NodeClassRef: NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
					Requirements: []Requirement{{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Gt", Values: []string{"3"}, MinValues: &big}},
				}}}},
		map[string]any{"f": 1.5, "i": 3, "u": uint64(math.MaxUint64), "n": math.Copysign(0, -1), "e": 1e21, "small": 1e-7},
	} {
		compareYAML(t, obj)
	}
	for _, s := range yamlSeeds {
		if !json.Valid([]byte(s)) {
			t.Fatalf("seed %.40q is not JSON", s)
		}
		compareDoc(t, s)
	}
}

func compareYAML(t *testing.T, obj any) {
	t.Helper()
	got, gotErr := YAML(obj)
	j, err := json.Marshal(obj)
	if err != nil {
		if gotErr == nil {
			t.Fatalf("YAML accepted what json.Marshal refuses: %v", err)
		}
		return
	}
	want, wantErr := yaml.JSONToYAML(j)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%.200s: error %v, JSONToYAML's %v", j, gotErr, wantErr)
	}
	if wantErr == nil && got != string(want) {
		t.Fatalf("%.200s:\ngot\n%s\nwant (JSONToYAML)\n%s", j, got, want)
	}
}
