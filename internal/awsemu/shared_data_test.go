package awsemu_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// sharedData finds the read-only research data that sits beside the project
// as ../shared/data (AWSEMU_SHARED_DATA overrides), or skips the test.
func sharedData(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("AWSEMU_SHARED_DATA"); dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		candidate := filepath.Join(dir, "shared", "data")
		if _, err := os.Stat(filepath.Join(candidate, "instance-types.csv")); err == nil {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("../shared/data not found (it sits beside the project checkout); set AWSEMU_SHARED_DATA to cross-check the fixtures")
		}
		dir = parent
	}
}

var eksImageName = regexp.MustCompile(`^amazon-eks-(?:node-al2023-(?:x86_64|arm64)-(?:standard|nvidia|neuron)-|node-|arm64-node-|gpu-node-)(1\.\d+)-(v\d{8})$`)

// TestFixturesAgainstEKSReleases: every AL2/AL2023 image name exists in the
// amazon-eks-ami release it claims, with the Kubernetes patch version of
// that release in its Description and release_version parameters; and for
// every (release, minor) the fixtures cover, every image the release
// published for our families is present (except 1.35 neuron, left out on
// purpose).
func TestFixturesAgainstEKSReleases(t *testing.T) {
	dir := sharedData(t)
	raw, err := os.ReadFile(filepath.Join(dir, "eks-ami-releases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Releases map[string]map[string]struct {
			AMINames       []string `json:"ami_names"`
			ReleaseVersion string   `json:"release_version"`
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	f := defaultFixtures(t)
	have := map[string]bool{}
	covered := map[[2]string]bool{} // (release, minor)
	for _, img := range f.Images {
		if *img.OwnerId != awsemu.OwnerEKS {
			continue
		}
		m := eksImageName.FindStringSubmatch(*img.Name)
		if m == nil {
			t.Errorf("%s: not an EKS AMI name", *img.Name)
			continue
		}
		minor, release := m[1], m[2]
		have[*img.Name] = true
		covered[[2]string{release, minor}] = true
		entry, ok := doc.Releases[release][minor]
		if !ok {
			t.Errorf("%s: release %s has no Kubernetes %s in eks-ami-releases.json", *img.Name, release, minor)
			continue
		}
		if !slices.Contains(entry.AMINames, *img.Name) {
			t.Errorf("%s: not among the names of release %s / %s", *img.Name, release, minor)
		}
		patch, _, _ := strings.Cut(entry.ReleaseVersion, "-")
		if !strings.Contains(aws.ToString(img.Description), "(k8s: "+patch+",") {
			t.Errorf("%s: Description %q does not name k8s %s", *img.Name, aws.ToString(img.Description), patch)
		}
	}
	for key := range covered {
		for _, name := range doc.Releases[key[0]][key[1]].AMINames {
			if !have[name] && (key[1] != "1.35" || !strings.Contains(name, "-neuron-")) {
				t.Errorf("release %s / %s published %s, missing from the fixtures", key[0], key[1], name)
			}
		}
	}
	for _, p := range f.Parameters {
		if !strings.HasSuffix(*p.Name, "/recommended/release_version") {
			continue
		}
		minor := strings.Split(strings.TrimPrefix(*p.Name, "/aws/service/eks/optimized-ami/"), "/")[0]
		_, date, _ := strings.Cut(*p.Value, "-")
		if want := doc.Releases["v"+date][minor].ReleaseVersion; *p.Value != want {
			t.Errorf("%s = %s, eks-ami-releases.json says %q", *p.Name, *p.Value, want)
		}
	}
}

// TestFixturesAgainstAMIFixtures: Bottlerocket names and every owner agree
// with the reference DescribeImages records, and the parameters the
// reference lists as absent are absent.
func TestFixturesAgainstAMIFixtures(t *testing.T) {
	dir := sharedData(t)
	raw, err := os.ReadFile(filepath.Join(dir, "ami-fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Images []ec2types.Image
		Absent []struct{ Name string } `json:"absent_ssm_parameters"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	refOwner := map[string]string{}
	for _, img := range doc.Images {
		refOwner[*img.Name] = *img.OwnerId
	}
	f := defaultFixtures(t)
	for _, img := range f.Images {
		name := *img.Name
		switch {
		case strings.HasPrefix(name, "bottlerocket-"):
			if refOwner[name] != *img.OwnerId {
				t.Errorf("%s: not a reference Bottlerocket image of owner %s (reference owner %q)", name, *img.OwnerId, refOwner[name])
			}
		case strings.HasPrefix(name, "amazon-eks-"):
			if owner, ok := refOwner[name]; ok && owner != *img.OwnerId {
				t.Errorf("%s: owner %s, reference %s", name, *img.OwnerId, owner)
			}
		}
	}
	if len(doc.Absent) == 0 {
		t.Fatal("reference lists no absent parameters")
	}
	for _, a := range doc.Absent {
		if _, ok := f.Parameter(a.Name); ok {
			t.Errorf("%s exists, the reference says AWS does not publish it", a.Name)
		}
	}
}

// TestInstanceTypesAgainstCSV: the facts Karpenter derives its labels from
// agree with instance-types.csv (Karpenter's own generated docs).
func TestInstanceTypesAgainstCSV(t *testing.T) {
	dir := sharedData(t)
	rows := readCSV(t, filepath.Join(dir, "instance-types.csv"))
	families := readCSV(t, filepath.Join(dir, "instance-families.csv"))
	f := defaultFixtures(t)
	for _, it := range f.InstanceTypes {
		name := string(it.InstanceType)
		row, ok := rows[name]
		if name == "mac1.metal" {
			// Karpenter filters x86_64_mac out, so its docs never list mac types.
			if ok {
				t.Errorf("mac1.metal is in instance-types.csv now: compare it like the others")
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not in instance-types.csv", name)
			continue
		}
		got := karpenterFacts(it)
		for _, col := range []string{"arch", "vcpu", "memory_mib", "gpu_count", "gpu_manufacturer", "gpu_name",
			"accelerator_count", "accelerator_name", "hypervisor", "bare_metal"} {
			if got[col] != row[col] {
				t.Errorf("%s: %s = %q, instance-types.csv says %q", name, col, got[col], row[col])
			}
		}
		fam := families[row["family"]]
		if fam == nil || fam["arch"] != got["arch"] ||
			fam["has_nvidia_gpu"] != strconv.FormatBool(got["gpu_manufacturer"] == "nvidia") ||
			fam["has_amd_gpu"] != strconv.FormatBool(got["gpu_manufacturer"] == "amd") ||
			fam["has_neuron"] != strconv.FormatBool(it.NeuronInfo != nil) {
			t.Errorf("%s: disagrees with family %s in instance-families.csv: %v", name, row["family"], fam)
		}
	}
}

// karpenterFacts derives the CSV columns the way Karpenter derives its
// labels (pkg/providers/instancetype/types.go computeRequirements).
func karpenterFacts(it ec2types.InstanceTypeInfo) map[string]string {
	out := map[string]string{
		"vcpu":              strconv.Itoa(int(aws.ToInt32(it.VCpuInfo.DefaultVCpus))),
		"memory_mib":        strconv.FormatInt(aws.ToInt64(it.MemoryInfo.SizeInMiB), 10),
		"gpu_count":         "0",
		"accelerator_count": "0",
		"hypervisor":        string(it.Hypervisor),
		"bare_metal":        strconv.FormatBool(aws.ToBool(it.BareMetal)),
	}
	if out["hypervisor"] == "" {
		out["hypervisor"] = "none"
	}
	// kubernetes.io/arch: Karpenter maps x86_64 and arm64; m1.small's i386
	// is ignored.
	for _, a := range it.ProcessorInfo.SupportedArchitectures {
		if v, ok := map[ec2types.ArchitectureType]string{"x86_64": "amd64", "arm64": "arm64"}[a]; ok {
			out["arch"] = v
		}
	}
	kebab := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "-")) }
	if it.GpuInfo != nil && len(it.GpuInfo.Gpus) == 1 {
		g := it.GpuInfo.Gpus[0]
		out["gpu_count"] = strconv.Itoa(int(aws.ToInt32(g.Count)))
		out["gpu_manufacturer"] = kebab(aws.ToString(g.Manufacturer))
		out["gpu_name"] = kebab(aws.ToString(g.Name))
	}
	if it.InferenceAcceleratorInfo != nil && len(it.InferenceAcceleratorInfo.Accelerators) == 1 && it.NeuronInfo == nil {
		a := it.InferenceAcceleratorInfo.Accelerators[0]
		out["accelerator_count"] = strconv.Itoa(int(aws.ToInt32(a.Count)))
		out["accelerator_name"] = kebab(aws.ToString(a.Name))
	}
	if it.NeuronInfo != nil && len(it.NeuronInfo.NeuronDevices) == 1 {
		d := it.NeuronInfo.NeuronDevices[0]
		out["accelerator_count"] = strconv.Itoa(int(aws.ToInt32(d.Count)))
		out["accelerator_name"] = kebab(aws.ToString(d.Name))
	}
	return out
}

// readCSV keys rows by their first column.
func readCSV(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	records, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, col := range records[0] {
			row[col] = rec[i]
		}
		out[rec[0]] = row
	}
	return out
}
