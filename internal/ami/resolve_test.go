package ami

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// fixtureNow is the clock of these tests: after CustomDeprecated's
// deprecation (2025-12-01), before any EKS image's (2027+).
var fixtureNow = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

// newResolver serves the project's fixtures in-process and resolves through
// the same cache the provider uses.
func newResolver(t *testing.T, opts ...awsemu.Options) (*Resolver, *awsemu.Server) {
	t.Helper()
	url, srv := awsemutest.Start(t, opts...)
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 5}))
	return &Resolver{Source: cache, Now: func() time.Time { return fixtureNow }}, srv
}

func resolve(t *testing.T, r *Resolver, k string, karp string, terms ...Term) Result {
	t.Helper()
	res, err := r.Resolve(context.Background(), Request{Terms: terms, Kubernetes: k8s(k), Karpenter: kv(karp)})
	if err != nil {
		t.Fatalf("resolve %+v: %v", terms, err)
	}
	return res
}

func imageID(t *testing.T, name string) string {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	img, ok := f.Image(name)
	if !ok {
		t.Fatalf("fixture image %s missing", name)
	}
	return aws.ToString(img.ImageId)
}

var (
	m5   = Instance{Name: "m5.large", Architecture: "amd64"}
	m6g  = Instance{Name: "m6g.large", Architecture: "arm64"}
	g5   = Instance{Name: "g5.xlarge", Architecture: "amd64", GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "a10g"}
	g5g  = Instance{Name: "g5g.xlarge", Architecture: "arm64", GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "t4g"}
	inf2 = Instance{Name: "inf2.xlarge", Architecture: "amd64", AcceleratorCount: 1, AcceleratorName: "inferentia2"}
	g4ad = Instance{Name: "g4ad.xlarge", Architecture: "amd64", GPUCount: 1, GPUManufacturer: "amd", GPUName: "radeon pro v520"}
)

func TestAL2023LatestResolvesFiveImagesAndMapsEachInstance(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Alias: "al2023@latest"})
	if len(res.AMIs) != 5 || res.Findings.HasErrors() {
		t.Fatalf("want 5 images, got %d: %v", len(res.AMIs), res.Findings)
	}
	m := Mapping{Family: amifamily.AL2023, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")}
	for _, c := range []struct {
		in   Instance
		name string
	}{
		{m5, "amazon-eks-node-al2023-x86_64-standard-1.32-v20251209"},
		{m6g, "amazon-eks-node-al2023-arm64-standard-1.32-v20251209"},
		{g5, "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209"},
		{g5g, "amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209"},
		{inf2, "amazon-eks-node-al2023-x86_64-neuron-1.32-v20251209"},
	} {
		got, fs := ForInstance(res, c.in, m)
		if fs.HasErrors() || got.Name != c.name || got.ID != imageID(t, c.name) {
			t.Errorf("%s: got %s (%s) %v, want %s", c.in.Name, got.ID, got.Name, fs, c.name)
		}
	}
	// Status order: CreationDate descending, then id ascending.
	for i := 1; i < len(res.AMIs); i++ {
		a, b := res.AMIs[i-1], res.AMIs[i]
		if created(a.CreationDate) < created(b.CreationDate) || (a.CreationDate == b.CreationDate && a.ID > b.ID) {
			t.Errorf("order: %s (%s) before %s (%s)", a.ID, a.CreationDate, b.ID, b.CreationDate)
		}
	}
	// Variant requirements as status.amis shows them.
	for _, a := range res.AMIs {
		if a.Requirements[0].Key != LabelArch {
			t.Errorf("%s: requirements not sorted by key length: %v", a.ID, a.Requirements)
		}
	}
	// AMD GPUs get the NVIDIA image, with a warning.
	got, fs := ForInstance(res, g4ad, m)
	if got.Variant != amifamily.NVIDIA || len(fs.ByRule(RuleAMDGPU.ID)) != 1 {
		t.Errorf("g4ad: %s %v", got.Variant, fs)
	}
}

func TestAL2023BeforeKarpenter14HasNoArm64GPUImage(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.3", Term{Alias: "al2023@latest"})
	if len(res.AMIs) != 4 {
		t.Fatalf("Karpenter 1.3 queries 4 AL2023 parameters, got %d images", len(res.AMIs))
	}
	_, fs := ForInstance(res, g5g, Mapping{Family: amifamily.AL2023, Kubernetes: k8s("1.32"), Karpenter: kv("1.3")})
	if len(fs.ByRule(RuleArm64GPU.ID)) != 1 {
		t.Fatalf("want arm64-gpu-no-image, got %v", fs)
	}
	if len(res.Findings.ByRule(RuleFirstMatchBug.ID)) != 1 {
		t.Errorf("Karpenter < 1.4 with several variants: want the #7925 warning, got %v", res.Findings)
	}
}

func TestAL2AliasAndG5G(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Alias: "al2@latest"})
	// The GPU image appears twice (nvidia and neuron): 4 entries over 3 ids.
	ids := map[string]bool{}
	for _, a := range res.AMIs {
		ids[a.ID] = true
	}
	if len(res.AMIs) != 4 || len(ids) != 3 {
		t.Fatalf("AL2 keeps 4 entries over 3 ids, got %d over %d", len(res.AMIs), len(ids))
	}
	_, fs := ForInstance(res, g5g, Mapping{Family: amifamily.AL2, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")})
	f := fs.ByRule(RuleArm64GPU.ID)
	if len(f) != 1 || !strings.HasPrefix(f[0].Detail, "AL2 publishes no arm64 NVIDIA image; g5g.xlarge (arm64, 1 NVIDIA t4g) cannot start with alias al2@latest") {
		t.Fatalf("got %v", fs)
	}
	if got, _ := ForInstance(res, inf2, Mapping{Family: amifamily.AL2, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")}); got.Name != "amazon-eks-gpu-node-1.32-v20251209" || got.Variant != amifamily.Neuron {
		t.Errorf("inf2 on AL2 gets the GPU image as neuron, got %s %s", got.Name, got.Variant)
	}
	res = resolve(t, r, "1.33", "1.14", Term{Alias: "al2@latest"})
	if len(res.Findings.ByRule(RuleAL2Kubernetes.ID)) != 1 {
		t.Fatalf("AL2 on 1.33: %v", res.Findings)
	}
}

func TestPinnedBottlerocketGivesGPUAndNonGPUDifferentImages(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Alias: "bottlerocket@1.49.0-713f44ce"})
	if res.Findings.HasErrors() || len(res.AMIs) != 5 {
		t.Fatalf("bottlerocket keeps 5 entries, got %d: %v", len(res.AMIs), res.Findings)
	}
	m := Mapping{Family: amifamily.Bottlerocket, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")}
	gpu, _ := ForInstance(res, g5, m)
	cpu, _ := ForInstance(res, m5, m)
	neuron, _ := ForInstance(res, inf2, m)
	armGPU, _ := ForInstance(res, g5g, m)
	if gpu.ID == cpu.ID || gpu.Name != "bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.49.0-713f44ce" || cpu.Name != "bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce" {
		t.Fatalf("g5 got %s, m5 got %s", gpu.Name, cpu.Name)
	}
	if neuron.ID != cpu.ID || neuron.Variant != amifamily.Neuron {
		t.Errorf("Neuron rides on the standard x86_64 image since 1.3: %s %s", neuron.Name, neuron.Variant)
	}
	if armGPU.Name != "bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce" {
		t.Errorf("g5g: %s", armGPU.Name)
	}
}

func TestPinnedAliasNotPublishedNamesReleases(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Alias: "al2023@v20200101"})
	f := res.Findings.ByRule(RuleAliasNotPublished.ID)
	if len(f) != 1 || !strings.Contains(f[0].Detail, "v20251112, v20251209") || !strings.Contains(f[0].Detail, `"al2023@v20251209"`) {
		t.Fatalf("got %v", res.Findings)
	}
	if f[0].Path.String() != "ami_selector_terms[0].alias" {
		t.Errorf("path %s", f[0].Path)
	}
}

func TestWindowsAliases(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Alias: "windows2022@latest"})
	if len(res.AMIs) != 1 || !strings.HasPrefix(res.AMIs[0].Name, "Windows_Server-2022-English-Core-EKS_Optimized-1.32-") {
		t.Fatalf("got %+v %v", res.AMIs, res.Findings)
	}
	m := Mapping{Family: amifamily.Windows2022, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")}
	if got, fs := ForInstance(res, g5, m); fs.HasErrors() || got.ID != res.AMIs[0].ID {
		t.Errorf("the Windows image serves GPU types too: %v", fs)
	}
	if _, fs := ForInstance(res, m6g, m); len(fs.ByRule(RuleNoCompatibleImage.ID)) != 1 || !strings.Contains(fs[0].Detail, "amd64 only") {
		t.Errorf("arm64 on Windows: %v", fs)
	}
	res = resolve(t, r, "1.32", "1.14", Term{Alias: "windows2025@latest"})
	if len(res.Findings.ByRule(RuleWindows2025Kubernetes.ID)) != 1 {
		t.Errorf("windows2025 on 1.32: %v", res.Findings)
	}
	res = resolve(t, r, "1.35", "1.14", Term{Alias: "windows2025@latest"})
	if len(res.AMIs) != 1 || res.Findings.HasErrors() {
		t.Errorf("windows2025 on 1.35: %+v %v", res.AMIs, res.Findings)
	}
}

func TestNameSelectorSkipsPendingAndRanksLikeKarpenter(t *testing.T) {
	r, srv := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Name: "team-eks-node-al2023-x86_64-*"})
	// Karpenter's state=available is applied to the one unfiltered answer.
	if got := srv.Stats()["ec2:DescribeImages"]; got != 1 {
		t.Errorf("DescribeImages calls = %d, want 1", got)
	}
	got := map[string]string{}
	for _, a := range res.AMIs {
		got[a.Architecture] = a.ID
		if a.Variant != "" || len(a.Requirements) != 1 {
			t.Errorf("non-alias images carry only the arch requirement: %+v", a)
		}
	}
	if got["amd64"] != awsemu.CustomTieWinnerID || got["arm64"] != awsemu.CustomArchLiarID || len(res.AMIs) != 2 {
		t.Fatalf("want tie winner (amd64) and arch liar (arm64), got %v", got)
	}
	reasons := map[string]string{}
	for _, s := range res.Skipped {
		reasons[s.ID] = s.Reason
	}
	for id, want := range map[string]string{
		awsemu.CustomPendingID:      "state is pending",
		awsemu.CustomFailedID:       "state is failed",
		awsemu.CustomTieLoserID:     "same creation date, greater name",
		awsemu.CustomDeprecatedID:   "deprecated; Karpenter prefers non-deprecated images",
		awsemu.CustomAvailableOldID: "newer",
	} {
		if !strings.Contains(reasons[id], want) {
			t.Errorf("%s: reason %q, want it to contain %q", id, reasons[id], want)
		}
	}
	if _, ok := reasons[awsemu.CustomTieWinnerID]; ok {
		t.Error("the winner must not be skipped")
	}
}

func TestOnlyPendingMatchIsAnError(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Name: "team-gpu-node-*"})
	f := res.Findings.ByRule(RuleNotAvailable.ID)
	want := fmt.Sprintf("%s (%s) is pending", awsemu.CustomGPUPendingOnlyID, awsemu.CustomGPUPendingOnlyName)
	if len(f) != 1 || !strings.Contains(f[0].Detail, want) || !strings.Contains(f[0].Detail, "Karpenter ignores images until they are available") {
		t.Fatalf("got %v", res.Findings)
	}
	// Before 1.2.2/1.3.0 Karpenter would have launched the pending image.
	res = resolve(t, r, "1.32", "1.2", Term{Name: "team-gpu-node-*"})
	if len(res.AMIs) != 1 || len(res.Findings.ByRule(RulePendingSelectable.ID)) != 1 {
		t.Fatalf("Karpenter 1.2.0: %+v %v", res.AMIs, res.Findings)
	}
}

// Before Karpenter 1.1 the query left deprecated images out, and EC2 decides
// which (an owner sees its own regardless), so that query is sent as is.
func TestBeforeIncludeDeprecatedTheServerFilters(t *testing.T) {
	r, srv := newResolver(t)
	res := resolve(t, r, "1.32", "1.0", Term{ID: awsemu.CustomDeprecatedID}, Term{ID: awsemu.CustomPendingID})
	// 1.0 has no state filter either: the pending image is its only pick.
	if len(res.AMIs) != 1 || res.AMIs[0].ID != awsemu.CustomPendingID {
		t.Errorf("Karpenter 1.0 sees the pending image and not the deprecated one: %+v", res.AMIs)
	}
	if got := srv.Stats()["ec2:DescribeImages"]; got != 2 {
		t.Errorf("DescribeImages calls = %d, want 2 (Karpenter's query and the unfiltered one)", got)
	}
}

func TestDeprecatedVersusNewerAndUsedWhenAlone(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{ID: awsemu.CustomDeprecatedID}, Term{ID: awsemu.CustomAvailableOldID})
	if len(res.AMIs) != 1 || res.AMIs[0].ID != awsemu.CustomAvailableOldID {
		t.Fatalf("non-deprecated beats newer deprecated: %+v", res.AMIs)
	}
	res = resolve(t, r, "1.32", "1.14", Term{ID: awsemu.CustomDeprecatedID}, Term{ID: awsemu.CustomPendingID})
	if len(res.AMIs) != 1 || res.AMIs[0].ID != awsemu.CustomDeprecatedID || !res.AMIs[0].Deprecated {
		t.Fatalf("deprecated image is used when nothing better exists: %+v", res.AMIs)
	}
}

func TestTagSelectorsAndUnsupportedArchitectures(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Tags: map[string]string{"karpenter.sh/discovery": "demo"}})
	got := map[string]string{}
	for _, a := range res.AMIs {
		got[a.Architecture] = a.ID
	}
	if got["amd64"] != awsemu.CustomTieWinnerID || got["arm64"] != awsemu.CustomArm64ID {
		t.Fatalf("got %v", got)
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		skipped[s.ID] = s.Reason
	}
	for _, id := range []string{awsemu.CustomI386ID, awsemu.CustomMacID} {
		if !strings.Contains(skipped[id], "is not supported") {
			t.Errorf("%s: %q", id, skipped[id])
		}
	}
	// "*" turns into a tag-key filter.
	res = resolve(t, r, "1.32", "1.14", Term{Tags: map[string]string{"karpenter.sh/discovery": "*"}})
	if len(res.AMIs) != 2 {
		t.Errorf("tag-key: %+v", res.AMIs)
	}
}

func TestSSMParameterTerms(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{SSMParameter: awsemu.ParamCustomX86}, Term{SSMParameter: "/does/not/exist"}, Term{SSMParameter: awsemu.ParamCustomNotAMI})
	if len(res.AMIs) != 1 || res.AMIs[0].ID != awsemu.CustomAvailableOldID {
		t.Fatalf("got %+v %v", res.AMIs, res.Findings)
	}
	all := fmt.Sprint(res.Lookups)
	if !strings.Contains(all, "not found (Karpenter skips the term)") || !strings.Contains(all, "is not an AMI id") {
		t.Errorf("lookups: %s", all)
	}
}

func TestNothingMatchedListsWhatWasTried(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Name: "nobody-*"})
	f := res.Findings.ByRule(RuleNotFound.ID)
	if len(f) != 1 || !strings.Contains(f[0].Detail, "owners=self,amazon name=nobody-* state=available") || !strings.Contains(f[0].Detail, "add `owner") {
		t.Fatalf("got %v", res.Findings)
	}
}

func TestUnusedTermWarning(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{ID: awsemu.CustomTieLoserID}, Term{Name: "team-eks-node-al2023-x86_64-20251015-r2"})
	if len(res.Findings.ByRule(RuleMultipleTermsOneArch.ID)) != 1 {
		t.Fatalf("got %v", res.Findings)
	}
}

// Id terms travel in one image-id filter, as Karpenter sends them; the
// image that loses is still its own term's, so that term is the one
// reported (it used to count as matched by the winner's query).
func TestUnusedIDTermWarning(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{ID: awsemu.CustomTieWinnerID}, Term{ID: awsemu.CustomAvailableOldID})
	f := res.Findings.ByRule(RuleMultipleTermsOneArch.ID)
	if len(f) != 1 || f[0].Path.String() != TermsPath.Index(1).String() {
		t.Fatalf("got %v", res.Findings)
	}
}

func TestPaginationOverMoreThanAThousandImages(t *testing.T) {
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 1500; i++ {
		name := fmt.Sprintf("bulk-node-%04d", i)
		f.AddImages(ec2types.Image{
			ImageId: aws.String(fmt.Sprintf("ami-0bulk%011d", i)), Name: aws.String(name), OwnerId: aws.String(awsemu.AccountID),
			Architecture: ec2types.ArchitectureValuesX8664, State: ec2types.ImageStateAvailable,
			CreationDate: aws.String(base.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)),
		})
	}
	url, srv := awsemutest.StartWith(t, f)
	awsemutest.Setenv(t, url)
	r := &Resolver{Source: awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 3})), Now: func() time.Time { return fixtureNow }}
	res := resolve(t, r, "1.32", "1.14", Term{Name: "bulk-node-*"})
	if len(res.AMIs) != 1 || res.AMIs[0].Name != "bulk-node-1499" {
		t.Fatalf("got %+v", res.AMIs)
	}
	if len(res.Skipped) != 1499 {
		t.Errorf("skipped %d, want 1499", len(res.Skipped))
	}
	// One query (the state filter applies to its answer), two pages.
	if got := srv.Stats()["ec2:DescribeImages"]; got != 2 {
		t.Errorf("DescribeImages calls = %d, want 2", got)
	}
}

func TestThrottledResponsesAreRetried(t *testing.T) {
	r, srv := newResolver(t, awsemu.Options{ThrottleRate: 0.3, Seed: 7})
	res := resolve(t, r, "1.32", "1.14", Term{Alias: "al2023@latest"})
	if len(res.AMIs) != 5 {
		t.Fatalf("got %d images", len(res.AMIs))
	}
	if srv.Stats()["throttled"] == 0 {
		t.Error("the emulator throttled nothing; the test proves nothing")
	}
}

func TestRequestEconomy(t *testing.T) {
	r, srv := newResolver(t)
	for i := 0; i < 50; i++ {
		resolve(t, r, "1.32", "1.14", Term{Alias: "al2023@latest"})
	}
	st := srv.Stats()
	if st["ssm:GetParameters"] != 1 || st["ec2:DescribeImages"] != 1 {
		t.Fatalf("50 resolutions of one alias: %v", st)
	}
}

func TestConcurrentResolutionsShareInFlightCalls(t *testing.T) {
	r, srv := newResolver(t, awsemu.Options{Latency: 50 * time.Millisecond})
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		go func() {
			res, err := r.Resolve(context.Background(), Request{Terms: []Term{{Alias: "bottlerocket@latest"}}, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")})
			if err == nil && len(res.AMIs) != 5 {
				err = fmt.Errorf("got %d images", len(res.AMIs))
			}
			errs <- err
		}()
	}
	for i := 0; i < 50; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if st := srv.Stats(); st["ssm:GetParameters"] != 1 || st["ec2:DescribeImages"] != 1 {
		t.Fatalf("50 concurrent resolutions: %v", st)
	}
}

// A name term without owner that matches nothing, next to terms that do,
// is warned about (ami-term-name-default-owners): images shared from
// another account are never found by it. With an owner, or when nothing matches at all (ami-not-found
// carries the advice), there is no such warning.
func TestNameTermWithoutOwnerMatchingNothing(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{Name: "team-eks-node-al2023-x86_64-*"}, Term{Name: "shared-eks-node-*"})
	f := res.Findings.ByRule(RuleNameWithoutOwner.ID)
	if len(f) != 1 || f[0].Path.String() != "ami_selector_terms[1].name" || f[0].Severity != rules.Warning || !strings.Contains(f[0].Detail, `owner = "<account id>"`) {
		t.Fatalf("got %v", res.Findings)
	}
	res = resolve(t, r, "1.32", "1.14", Term{Name: "team-eks-node-al2023-x86_64-*"}, Term{Name: "shared-eks-node-*", Owner: "111122223333"})
	if f := res.Findings.ByRule(RuleNameWithoutOwner.ID); len(f) != 0 {
		t.Errorf("with an owner: %v", f)
	}
	res = resolve(t, r, "1.32", "1.14", Term{Name: "shared-eks-node-*"})
	if f := res.Findings.ByRule(RuleNameWithoutOwner.ID); len(f) != 0 || len(res.Findings.ByRule(RuleNotFound.ID)) != 1 {
		t.Errorf("nothing matched: %v", res.Findings)
	}
}

// A selector that matches a disabled image reports it as skipped (asked
// with IncludeDisabled, which Karpenter never sets), and an id term on it
// says why nothing is usable; the pick is Karpenter's either way.
func TestDisabledImagesAreReportedNotPicked(t *testing.T) {
	r, _ := newResolver(t)
	res := resolve(t, r, "1.32", "1.14", Term{ID: awsemu.CustomDisabledID})
	f := res.Findings.ByRule(RuleNotAvailable.ID)
	if len(res.AMIs) != 0 || len(f) != 1 || !strings.Contains(f[0].Detail, awsemu.CustomDisabledID) || !strings.Contains(f[0].Detail, "is disabled; Karpenter never sees disabled images") || !strings.Contains(f[0].Detail, "ec2:EnableImage") {
		t.Fatalf("id of a disabled image: %+v %v", res.AMIs, res.Findings)
	}
	res = resolve(t, r, "1.32", "1.14", Term{ID: awsemu.CustomDisabledID}, Term{ID: awsemu.CustomAvailableOldID})
	if len(res.AMIs) != 1 || res.AMIs[0].ID != awsemu.CustomAvailableOldID {
		t.Fatalf("picked %+v", res.AMIs)
	}
	var reason string
	for _, s := range res.Skipped {
		if s.ID == awsemu.CustomDisabledID {
			reason = s.Reason
		}
	}
	if !strings.HasPrefix(reason, "state is disabled") {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

// Neuron instances on a Bottlerocket alias across releases
// (aws/karpenter-provider-aws pkg/providers/amifamily/bottlerocket.go): 1.0
// puts them on the NVIDIA image, 1.1 and 1.2 on none (a specific error),
// 1.3 on the standard x86_64 image.
func TestBottlerocketNeuronAcrossReleases(t *testing.T) {
	r, _ := newResolver(t)
	for _, c := range []struct {
		karp, image, err string
	}{
		{"1.0", "-nvidia-x86_64-", ""},
		{"1.2", "", "maps Neuron instances to no Bottlerocket image"},
		{"1.3", "bottlerocket-aws-k8s-1.32-x86_64-", ""},
	} {
		res := resolve(t, r, "1.32", c.karp, Term{Alias: "bottlerocket@latest"})
		got, fs := ForInstance(res, inf2, Mapping{Family: amifamily.Bottlerocket, Kubernetes: k8s("1.32"), Karpenter: kv(c.karp)})
		if c.err != "" {
			if !fs.HasErrors() || !strings.Contains(fs[0].Detail, c.err) || !strings.Contains(fs[0].Detail, "Upgrade Karpenter to 1.3") {
				t.Errorf("%s: %v", c.karp, fs)
			}
			continue
		}
		if fs.HasErrors() || !strings.Contains(got.Name, c.image) {
			t.Errorf("%s: got %s (%s) %v, want an image named like %q", c.karp, got.ID, got.Name, fs, c.image)
		}
	}
}

// recorder keeps the DescribeImages queries the resolver sends.
type recorder struct {
	Source
	mu      sync.Mutex
	queries []awsclient.ImageQuery
}

func (r *recorder) DescribeImages(ctx context.Context, q awsclient.ImageQuery) ([]awsclient.Image, error) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.mu.Unlock()
	return r.Source.DescribeImages(ctx, q)
}

// The queries Karpenter's DescribeImageQueries builds
// (pkg/providers/amifamily/ami.go): a tag
// value "*" is a tag-key filter; a name term without owner gets owners
// self and amazon; id terms and resolved ssm_parameter terms share one
// image-id query; every term else is its own query.
func TestQueriesAreKarpentersQueries(t *testing.T) {
	base, _ := newResolver(t)
	rec := &recorder{Source: base.Source}
	r := &Resolver{Source: rec, Now: base.Now}
	resolve(t, r, "1.32", "1.14",
		Term{Tags: map[string]string{"karpenter.sh/discovery": "*", "team": "platform"}},
		Term{Name: "team-eks-node-al2023-x86_64-*"},
		Term{ID: awsemu.CustomAvailableOldID},
		Term{SSMParameter: awsemu.ParamCustomDeregistered},
		Term{ID: awsemu.CustomTieWinnerID},
	)
	got := map[string]bool{}
	for _, q := range rec.queries {
		got[q.Key()] = true
	}
	for _, want := range []awsclient.ImageQuery{
		{Filters: []awsclient.Filter{{Name: "tag-key", Values: []string{"karpenter.sh/discovery"}}, {Name: "tag:team", Values: []string{"platform"}}}},
		{Owners: []string{"self", "amazon"}, Filters: []awsclient.Filter{{Name: "name", Values: []string{"team-eks-node-al2023-x86_64-*"}}}},
		{Filters: []awsclient.Filter{{Name: "image-id", Values: []string{awsemu.CustomAvailableOldID, awsemu.CustomDeregisteredID, awsemu.CustomTieWinnerID}}}},
	} {
		want.IncludeDeprecated, want.IncludeDisabled = true, true
		if !got[want.Key()] {
			t.Errorf("no query %s among %v", want.Key(), got)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d distinct queries, want 3: %v", len(got), got)
	}
}
