package awsclient

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The table is the pinned SDK's partitions.json, region for region.
func TestKnownRegionsAreTheSDKs(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/aws/aws-sdk-go-v2").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal", "endpoints", "awsrulesfn", "partitions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Partitions []struct {
			Regions map[string]any `json:"regions"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range doc.Partitions {
		for r := range p.Regions {
			if !strings.HasSuffix(r, "-global") { // a signing scope, not a region
				want = append(want, r)
			}
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(partitionRegions))
	if !slices.Equal(got, want) {
		t.Errorf("table %v\nSDK %v", got, want)
	}
}

func TestKnownRegion(t *testing.T) {
	for _, c := range []struct {
		in            string
		known, shaped bool
		closest       string
	}{
		{"us-east-1", true, true, ""},
		{"us-gov-west-1", true, true, ""},
		{"us-east1", false, false, "us-east-1"},
		{"eu-west-9", false, true, "eu-west-1"},
		{"Frankfurt", false, false, ""},
	} {
		known, closest, shaped := KnownRegion(c.in)
		if known != c.known || closest != c.closest || shaped != c.shaped {
			t.Errorf("KnownRegion(%q) = %v, %q, %v; want %v, %q, %v", c.in, known, closest, shaped, c.known, c.closest, c.shaped)
		}
	}
}
