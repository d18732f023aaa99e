package awsemu_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

func TestDefaultFixturesShape(t *testing.T) {
	f := defaultFixtures(t)
	if len(f.Images) != 75 || len(f.InstanceTypes) != 25 || len(f.Parameters) != 165 || len(f.Clusters) != 3 {
		t.Errorf("counts: %d images, %d instance types, %d parameters, %d clusters",
			len(f.Images), len(f.InstanceTypes), len(f.Parameters), len(f.Clusters))
	}
	amiID := regexp.MustCompile(`^ami-0[0-9a-f]{16}$`)
	snapID := regexp.MustCompile(`^snap-0[0-9a-f]{16}$`)
	seen := map[string]string{}
	for _, img := range f.Images {
		name := *img.Name
		for _, id := range append([]string{*img.ImageId}, snapshots(img)...) {
			if prev, dup := seen[id]; dup {
				t.Errorf("%s: id %s also used by %s", name, id, prev)
			}
			seen[id] = name
		}
		if !amiID.MatchString(*img.ImageId) {
			t.Errorf("%s: ImageId %s", name, *img.ImageId)
		}
		for _, s := range snapshots(img) {
			if !snapID.MatchString(s) {
				t.Errorf("%s: snapshot %s", name, s)
			}
		}
		if aws.ToBool(img.Public) {
			// AWS deprecates public AMIs two years after creation.
			created, _ := time.Parse(time.RFC3339, *img.CreationDate)
			deprecated, _ := time.Parse(time.RFC3339, aws.ToString(img.DeprecationTime))
			if !deprecated.Equal(created.AddDate(2, 0, 0)) || aws.ToString(img.ImageOwnerAlias) != "amazon" {
				t.Errorf("%s: public image with DeprecationTime %v, alias %v", name, aws.ToString(img.DeprecationTime), aws.ToString(img.ImageOwnerAlias))
			}
		}
		root := rootSize(img)
		switch {
		case strings.HasPrefix(name, "amazon-eks-node-al2023-"):
			expectRoot(t, img, awsemu.OwnerEKS, 20, ec2types.VolumeTypeGp3)
		case strings.HasPrefix(name, "amazon-eks-"):
			expectRoot(t, img, awsemu.OwnerEKS, 20, ec2types.VolumeTypeGp2)
		case strings.HasPrefix(name, "Windows_Server-"):
			expectRoot(t, img, awsemu.OwnerWindows, 50, ec2types.VolumeTypeGp3)
		case strings.HasPrefix(name, "bottlerocket-"):
			want := int32(2)
			if strings.Contains(name, "-nvidia-") {
				want = 4
			}
			if len(img.BlockDeviceMappings) != 2 || root != want || *img.BlockDeviceMappings[1].DeviceName != "/dev/xvdb" ||
				*img.BlockDeviceMappings[1].Ebs.VolumeSize != 20 || *img.OwnerId != awsemu.OwnerBottlerocket {
				t.Errorf("%s: Bottlerocket volumes or owner wrong", name)
			}
		default:
			if *img.OwnerId != awsemu.AccountID || img.ImageOwnerAlias != nil || aws.ToBool(img.Public) {
				t.Errorf("%s: custom image must be private to %s", name, awsemu.AccountID)
			}
		}
	}

	// The generated index names real fixture images.
	for id, name := range map[string]string{
		awsemu.CustomDeregisteredID: awsemu.CustomDeregisteredName, awsemu.CustomAvailableOldID: awsemu.CustomAvailableOldName,
		awsemu.CustomTieLoserID: awsemu.CustomTieLoserName, awsemu.CustomTieWinnerID: awsemu.CustomTieWinnerName,
		awsemu.CustomArm64ID: awsemu.CustomArm64Name, awsemu.CustomDeprecatedID: awsemu.CustomDeprecatedName,
		awsemu.CustomArchLiarID: awsemu.CustomArchLiarName, awsemu.CustomFailedID: awsemu.CustomFailedName,
		awsemu.CustomDisabledID: awsemu.CustomDisabledName, awsemu.CustomPendingID: awsemu.CustomPendingName,
		awsemu.CustomI386ID: awsemu.CustomI386Name, awsemu.CustomMacID: awsemu.CustomMacName,
		awsemu.CustomGPUPendingOnlyID:          awsemu.CustomGPUPendingOnlyName,
		awsemu.CustomBottlerocketNvidiaArm64ID: awsemu.CustomBottlerocketNvidiaArm64Name,
	} {
		img, ok := f.Image(id)
		if !ok || *img.Name != name || *img.OwnerId != awsemu.AccountID {
			t.Errorf("index: %s/%s not a self-owned fixture image", id, name)
		}
	}
	readme, err := os.ReadFile(filepath.Join("testdata", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range f.Images {
		if *img.OwnerId == awsemu.AccountID && !strings.Contains(string(readme), "`"+*img.ImageId+"`") {
			t.Errorf("testdata/README.md does not list %s (%s)", *img.ImageId, *img.Name)
		}
	}
	var network []string
	for _, s := range f.Subnets {
		network = append(network, *s.SubnetId)
	}
	for _, g := range f.SecurityGroups {
		network = append(network, *g.GroupId)
	}
	for _, c := range f.CapacityReservations {
		network = append(network, *c.CapacityReservationId)
	}
	for _, r := range f.Roles {
		network = append(network, *r.RoleName)
	}
	for _, p := range f.InstanceProfiles {
		network = append(network, *p.InstanceProfileName)
	}
	for _, id := range append(network, awsemu.VPCDemo, awsemu.VPCLegacy) {
		if !strings.Contains(string(readme), "`"+id+"`") {
			t.Errorf("testdata/README.md does not list %s", id)
		}
	}
	tie1, _ := f.Image(awsemu.CustomTieLoserID)
	tie2, _ := f.Image(awsemu.CustomTieWinnerID)
	if *tie1.CreationDate != *tie2.CreationDate || *tie1.Name >= *tie2.Name {
		t.Error("the tie pair must share CreationDate, the winner having the greater Name")
	}
	for _, p := range []string{awsemu.ParamCustomX86, awsemu.ParamCustomArm64, awsemu.ParamCustomDeregistered, awsemu.ParamCustomNotAMI} {
		if _, ok := f.Parameter(p); !ok {
			t.Errorf("parameter %s missing", p)
		}
	}
}

func snapshots(img ec2types.Image) []string {
	var out []string
	for _, m := range img.BlockDeviceMappings {
		if m.Ebs != nil && m.Ebs.SnapshotId != nil {
			out = append(out, *m.Ebs.SnapshotId)
		}
	}
	return out
}

func rootSize(img ec2types.Image) int32 {
	for _, m := range img.BlockDeviceMappings {
		if aws.ToString(m.DeviceName) == aws.ToString(img.RootDeviceName) && m.Ebs != nil {
			return aws.ToInt32(m.Ebs.VolumeSize)
		}
	}
	return 0
}

func expectRoot(t *testing.T, img ec2types.Image, owner string, size int32, vt ec2types.VolumeType) {
	t.Helper()
	m := img.BlockDeviceMappings[0]
	if *img.OwnerId != owner || rootSize(img) != size || m.Ebs.VolumeType != vt {
		t.Errorf("%s: owner %s root %d GiB %s, want %s %d GiB %s", *img.Name, *img.OwnerId, rootSize(img), m.Ebs.VolumeType, owner, size, vt)
	}
}

// karpenterPick queries like Karpenter (state=available, IncludeDeprecated,
// MaxResults 1000) and keeps one image per architecture like compareAMI:
// non-deprecated first, then newest CreationDate, then greatest Name.
func karpenterPick(t *testing.T, e *env, in ec2.DescribeImagesInput) map[string]string {
	t.Helper()
	in.Filters = append(in.Filters, filter("state", "available"))
	in.IncludeDeprecated = aws.Bool(true)
	in.MaxResults = aws.Int32(1000)
	best := map[string]ec2types.Image{}
	better := func(a, b ec2types.Image) bool {
		da, db := deprecatedAt(a, testNow), deprecatedAt(b, testNow)
		if da != db {
			return !da
		}
		if *a.CreationDate != *b.CreationDate {
			return *a.CreationDate > *b.CreationDate
		}
		return *a.Name > *b.Name
	}
	p := ec2.NewDescribeImagesPaginator(e.EC2, &in)
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, img := range page.Images {
			arch := map[ec2types.ArchitectureValues]string{"x86_64": "amd64", "arm64": "arm64"}[img.Architecture]
			if arch == "" {
				continue // Karpenter drops i386, x86_64_mac, arm64_mac silently
			}
			if cur, ok := best[arch]; !ok || better(img, cur) {
				best[arch] = img
			}
		}
	}
	out := map[string]string{}
	for arch, img := range best {
		out[arch] = *img.Name
	}
	return out
}

func deprecatedAt(img ec2types.Image, now time.Time) bool {
	d, err := time.Parse(time.RFC3339, aws.ToString(img.DeprecationTime))
	return err == nil && !d.After(now)
}

// TestTrapOutcomes pins what the README promises for Karpenter's selection.
func TestTrapOutcomes(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	for _, tc := range []struct {
		name string
		in   ec2.DescribeImagesInput
		want map[string]string
	}{
		{
			name: "series name pattern",
			in:   ec2.DescribeImagesInput{Owners: []string{"self", "amazon"}, Filters: []ec2types.Filter{filter("name", "team-eks-node-al2023-x86_64-*")}},
			want: map[string]string{"amd64": awsemu.CustomTieWinnerName, "arm64": awsemu.CustomArchLiarName},
		},
		{
			name: "discovery tag: one image per architecture",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag:karpenter.sh/discovery", "demo")}},
			want: map[string]string{"amd64": awsemu.CustomTieWinnerName, "arm64": awsemu.CustomArm64Name},
		},
		{
			name: "team tag",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag:team", "platform")}},
			want: map[string]string{"amd64": awsemu.CustomTieWinnerName, "arm64": awsemu.CustomBottlerocketNvidiaArm64Name},
		},
		{
			name: "only pending matches",
			in:   ec2.DescribeImagesInput{Owners: []string{"self", "amazon"}, Filters: []ec2types.Filter{filter("name", "team-gpu-node-*")}},
			want: map[string]string{},
		},
		{
			name: "the deprecated image is used when it is the only one",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-id", awsemu.CustomDeprecatedID, awsemu.CustomPendingID)}},
			want: map[string]string{"amd64": awsemu.CustomDeprecatedName},
		},
		{
			name: "deprecated loses to an older non-deprecated image",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-id", awsemu.CustomDeprecatedID, awsemu.CustomAvailableOldID)}},
			want: map[string]string{"amd64": awsemu.CustomAvailableOldName},
		},
		{
			name: "newest EKS release wins",
			in:   ec2.DescribeImagesInput{Owners: []string{"amazon"}, Filters: []ec2types.Filter{filter("name", "amazon-eks-node-al2023-*-standard-1.32-*")}},
			want: map[string]string{
				"amd64": "amazon-eks-node-al2023-x86_64-standard-1.32-" + awsemu.EKSReleaseLatest,
				"arm64": "amazon-eks-node-al2023-arm64-standard-1.32-" + awsemu.EKSReleaseLatest,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := karpenterPick(t, e, tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for arch, name := range tc.want {
				if got[arch] != name {
					t.Errorf("%s: got %s, want %s", arch, got[arch], name)
				}
			}
		})
	}
}

var (
	al2023Param = regexp.MustCompile(`^/aws/service/eks/optimized-ami/(1\.\d+)/amazon-linux-2023/(x86_64|arm64)/(standard|nvidia|neuron)/([^/]+)/image_id$`)
	al2Param    = regexp.MustCompile(`^/aws/service/eks/optimized-ami/(1\.\d+)/amazon-linux-2(|-arm64|-gpu)/([^/]+)/image_id$`)
	brParam     = regexp.MustCompile(`^/aws/service/bottlerocket/aws-k8s-(1\.\d+)(-nvidia)?/(x86_64|arm64)/([^/]+)/image_id$`)
	winParam    = regexp.MustCompile(`^/aws/service/ami-windows-latest/(Windows_Server-\d{4}-English-Core-EKS_Optimized-1\.\d+)/image_id$`)
)

// TestParametersPointAtTheRightImages: every image_id parameter names an
// image of its family, architecture, variant and Kubernetes minor, and the
// recommended/latest ones the newest release.
func TestParametersPointAtTheRightImages(t *testing.T) {
	f := defaultFixtures(t)
	latestEKS := map[string]string{"1.31": awsemu.EKSReleaseLatest, "1.32": awsemu.EKSReleaseLatest, "1.35": awsemu.EKSRelease135}
	for _, p := range f.Parameters {
		name, value := *p.Name, *p.Value
		if !strings.HasSuffix(name, "/image_id") {
			continue
		}
		img, ok := f.Image(value)
		if !ok {
			t.Errorf("%s = %s: no such image", name, value)
			continue
		}
		var want string
		switch {
		case al2023Param.MatchString(name):
			m := al2023Param.FindStringSubmatch(name)
			want = m[4]
			if want == "recommended" {
				want = "amazon-eks-node-al2023-" + m[2] + "-" + m[3] + "-" + m[1] + "-" + latestEKS[m[1]]
			} else if !strings.HasPrefix(want, "amazon-eks-node-al2023-"+m[2]+"-"+m[3]+"-"+m[1]+"-v") {
				t.Errorf("%s: pinned name does not match its path", name)
			}
		case al2Param.MatchString(name):
			m := al2Param.FindStringSubmatch(name)
			want = m[3]
			if want == "recommended" {
				want = map[string]string{"": "amazon-eks-node-", "-arm64": "amazon-eks-arm64-node-", "-gpu": "amazon-eks-gpu-node-"}[m[2]] + m[1] + "-" + latestEKS[m[1]]
			}
		case brParam.MatchString(name):
			m := brParam.FindStringSubmatch(name)
			version := m[4]
			if version == "latest" {
				version = awsemu.BottlerocketReleaseLatest
			}
			arch := map[string]string{"x86_64": "x86_64", "arm64": "aarch64"}[m[3]]
			prefix := "bottlerocket-aws-k8s-" + m[1] + m[2] + "-" + arch + "-v" + version
			if !strings.HasPrefix(*img.Name, prefix) {
				t.Errorf("%s -> %s, want %s*", name, *img.Name, prefix)
			}
			continue
		case winParam.MatchString(name):
			if prefix := winParam.FindStringSubmatch(name)[1] + "-"; !strings.HasPrefix(*img.Name, prefix) {
				t.Errorf("%s -> %s", name, *img.Name)
			}
			continue
		case strings.HasPrefix(name, "/platform/"):
			continue
		default:
			t.Errorf("unexpected parameter %s", name)
			continue
		}
		if *img.Name != want {
			t.Errorf("%s -> %s, want %s", name, *img.Name, want)
		}
	}

	// Parameters that must not exist, because AWS does not publish them.
	for _, absent := range []string{
		"/aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id",
		"/aws/service/eks/optimized-ami/1.35/amazon-linux-2/recommended/image_id",
		"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/neuron/recommended/image_id",
		"/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64-gpu/recommended/image_id",
		"/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.32/image_id",
		"/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.31/image_id",
	} {
		if _, ok := f.Parameter(absent); ok {
			t.Errorf("%s must not exist", absent)
		}
	}
	for _, p := range f.Parameters {
		if strings.Contains(*p.Name, "/amazon-linux-2-arm64-gpu/") || strings.Contains(*p.Name, "/arm64/neuron/") ||
			strings.Contains(*p.Name, "/1.35/amazon-linux-2/") || strings.Contains(*p.Name, "/1.35/amazon-linux-2-") {
			t.Errorf("%s must not exist", *p.Name)
		}
	}
	if v, _ := f.Parameter(awsemu.ParamCustomNotAMI); strings.HasPrefix(*v.Value, "ami-") {
		t.Errorf("%s must not hold an ami- id", awsemu.ParamCustomNotAMI)
	}
}

// TestParameterHistory: the history lists every version 1..current of the
// parameters that were updated, as get-parameter-history would, oldest
// first; its current version is the parameter's value; an image_id was only
// ever set to an existing image, older versions to older images.
func TestParameterHistory(t *testing.T) {
	f := defaultFixtures(t)
	byName := map[string][]ssmtypes.ParameterHistory{}
	for _, h := range f.ParameterHistory {
		byName[*h.Name] = append(byName[*h.Name], h)
	}
	if len(byName) == 0 {
		t.Fatal("no parameter history")
	}
	for _, p := range f.Parameters {
		hs, ok := byName[*p.Name]
		if p.Version > 1 && !ok {
			t.Errorf("%s is at version %d but has no history", *p.Name, p.Version)
		}
		if !ok {
			continue
		}
		delete(byName, *p.Name)
		if int64(len(hs)) != p.Version {
			t.Errorf("%s: %d history entries, want versions 1..%d", *p.Name, len(hs), p.Version)
			continue
		}
		var prev time.Time
		for i, h := range hs {
			if h.Version != int64(i+1) || !h.LastModifiedDate.After(prev) {
				t.Errorf("%s: entry %d is version %d modified %v, want version %d after %v", *p.Name, i, h.Version, h.LastModifiedDate, i+1, prev)
			}
			prev = *h.LastModifiedDate
			if strings.HasSuffix(*p.Name, "/image_id") || strings.HasPrefix(*p.Name, "/platform/ami/al2023/") {
				if _, ok := f.Image(*h.Value); !ok {
					t.Errorf("%s version %d = %s: no such image", *p.Name, h.Version, *h.Value)
				}
			}
		}
		if cur := hs[len(hs)-1]; *cur.Value != *p.Value || !cur.LastModifiedDate.Equal(*p.LastModifiedDate) {
			t.Errorf("%s: the history's current version %s differs from the parameter's %s", *p.Name, *cur.Value, *p.Value)
		}
	}
	for name := range byName {
		t.Errorf("history of %s, which is not a parameter", name)
	}
	x86 := map[int64][]string{}
	for _, h := range f.ParameterHistory {
		if *h.Name == awsemu.ParamCustomX86 {
			x86[h.Version] = h.Labels
		}
	}
	if len(x86) != 2 || !slices.Equal(x86[1], []string{"rollback"}) || !slices.Equal(x86[2], []string{"prod"}) {
		t.Errorf("%s labels %v, want version 1 rollback, version 2 prod", awsemu.ParamCustomX86, x86)
	}
}

func TestLoadFixtures(t *testing.T) {
	fromDir, err := awsemu.LoadFixtures("testdata")
	if err != nil {
		t.Fatal(err)
	}
	embedded := defaultFixtures(t)
	assertSame(t, "testdata", *embedded, *fromDir)

	// A missing file means none of that kind.
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", awsemu.ClustersFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, awsemu.ClustersFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	partial, err := awsemu.LoadFixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(partial.Clusters) != 3 || len(partial.Images)+len(partial.InstanceTypes)+len(partial.Parameters) != 0 {
		t.Errorf("partial dir: %+v", partial)
	}

	// Raw single-object CLI outputs are accepted too.
	single := t.TempDir()
	for file, body := range map[string]string{
		awsemu.ClustersFile:   `{"cluster": {"name": "solo", "version": "1.33", "createdAt": "2025-01-02T03:04:05.000000+00:00"}}`,
		awsemu.ParametersFile: `{"Parameter": {"Name": "/solo", "Value": "x", "LastModifiedDate": "2025-01-02T03:04:05.123000+00:00"}}`,
	} {
		if err := os.WriteFile(filepath.Join(single, file), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	solo, err := awsemu.LoadFixtures(single)
	if err != nil {
		t.Fatal(err)
	}
	if len(solo.Clusters) != 1 || *solo.Clusters[0].Version != "1.33" || len(solo.Parameters) != 1 || *solo.Parameters[0].Value != "x" {
		t.Errorf("single-object files: %+v", solo)
	}

	if _, err := awsemu.LoadFixtures(filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing directory must be an error")
	}
	if err := os.WriteFile(filepath.Join(dir, awsemu.ImagesFile), []byte(`{"Images": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := awsemu.LoadFixtures(dir); err == nil || !strings.Contains(err.Error(), awsemu.ImagesFile) {
		t.Errorf("malformed JSON: error %v should name the file", err)
	}

	// Parameters without the fields AWS always returns get them filled in.
	f := &awsemu.Fixtures{}
	f.AddParameters(ssmParam("/team/x", "ami-0123456789abcdef0"))
	e := newEnv(t, f, awsemu.Options{}, nil)
	out, err := e.SSM.GetParameter(context.Background(), ssmGet("/team/x"))
	if err != nil {
		t.Fatal(err)
	}
	if p := out.Parameter; p.Version != 1 || p.Type != "String" || *p.DataType != "text" || *p.ARN != "arn:aws:ssm:us-east-1:123456789012:parameter/team/x" {
		t.Errorf("defaults not filled: %+v", p)
	}
}
