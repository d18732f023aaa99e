package ami

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// outcomeFindings judges a finished resolution: nothing usable is an error;
// release-specific hazards are warnings.
func (r *Resolver) outcomeFindings(req Request, b behaviour, res *Result, p *picker) rules.Findings {
	var fs rules.Findings
	if len(res.AMIs) == 0 {
		var unavailable []string
		for _, s := range res.Skipped {
			if s.State != "" && s.State != "available" {
				unavailable = append(unavailable, fmt.Sprintf("%s (%s) is %s; %s", s.ID, s.Name, s.State, stateAdvice(s.State)))
			}
		}
		if len(unavailable) > 0 {
			return append(fs, rules.New(RuleNotAvailable, TermsPath,
				"%s. Karpenter asks DescribeImages for state=available images only, so no image is usable and the EC2NodeClass would report \"AMISelector did not match any AMIs\".",
				strings.Join(unavailable, "; ")))
		}
		return append(fs, rules.New(RuleNotFound, TermsPath,
			"no image matched, so Karpenter would report \"AMISelector did not match any AMIs\" and launch nothing. Tried:\n%s%s",
			formatLookups(res.Lookups), ownerHint(req.Terms)))
	}
	if !b.stateFilter {
		for _, a := range res.AMIs {
			if a.Image.State != "available" {
				fs = append(fs, rules.New(RulePendingSelectable, TermsPath,
					"Karpenter %s does not filter on state=available: it would use %s (%s), which is %s. Images still being built get launched and later show as drift (#7652). Upgrade to 1.3.0 (or 1.2.2), or select images that are available.",
					req.Karpenter, a.ID, a.Name, a.Image.State))
			}
		}
	}
	if res.Alias == nil {
		fs = append(fs, unusedTermsWarning(res, p)...)
		return fs
	}
	variants := map[amifamily.Variant]bool{}
	for _, a := range res.AMIs {
		variants[a.Variant] = true
	}
	if variantsSwapped(req.Karpenter) && (variants[amifamily.NVIDIA] || variants[amifamily.Neuron]) {
		fs = append(fs, rules.New(RuleVariantSwap, TermsPath,
			"Karpenter %s swaps the requirements of the nvidia and neuron variants (fixed in 1.0.3, PR #6976): NVIDIA instances get the Neuron image and Neuron instances the NVIDIA one. Upgrade Karpenter to 1.0.3 or later.", req.Karpenter))
	}
	if !req.Karpenter.AtLeast(4, 0) && len(variants) > 1 {
		fs = append(fs, rules.New(RuleFirstMatchBug, TermsPath,
			"alias %s resolves %d variants and Karpenter %s maps images to nodes leniently when learning capacity (#7925): non-GPU nodes can be matched to the GPU image, the capacity cache is never filled and Karpenter keeps launching nodes too small for the pod. Upgrade to Karpenter 1.4.0 or later.",
			res.Alias, len(variants), req.Karpenter))
	}
	return fs
}

// unusedTermsWarning flags terms whose images all lost to images of other
// terms (Karpenter keeps one image per requirement set:
// pkg/providers/amifamily/ami.go DefaultProvider.amis, compareAMI).
func unusedTermsWarning(res *Result, p *picker) rules.Findings {
	winners := map[int]bool{}
	for _, c := range p.best {
		for _, t := range p.terms[c.ami.ID] {
			winners[t] = true
		}
	}
	matched := map[int]bool{}
	for _, ts := range p.terms {
		for _, t := range ts {
			matched[t] = true
		}
	}
	var idx []int
	for t := range matched {
		if !winners[t] {
			idx = append(idx, t)
		}
	}
	sort.Ints(idx)
	var fs rules.Findings
	for _, t := range idx {
		var kept []string
		for _, a := range res.AMIs {
			kept = append(kept, fmt.Sprintf("%s %s (%s)", a.Architecture, a.ID, a.Name))
		}
		fs = append(fs, rules.New(RuleMultipleTermsOneArch, TermsPath.Index(t),
			"every image this term matches loses to an image of another term: without an alias Karpenter keeps only the newest non-deprecated image per architecture, here %s. Use a separate EC2NodeClass for the images of this term, or remove it.",
			strings.Join(kept, ", ")))
	}
	return fs
}

func formatLookups(ls []Lookup) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "  - %s -> %s\n", l.What, l.Result)
	}
	return b.String()
}

func ownerHint(terms []Term) string {
	for _, t := range terms {
		if t.Name != "" && t.Owner == "" && t.ID == "" && t.SSMParameter == "" {
			return fmt.Sprintf("A name term without owner searches only owners self and amazon; if %q belongs to another account, add `owner = \"<account id>\"`.", t.Name)
		}
	}
	return ""
}

// aliasNotResolved explains an alias none of whose SSM parameters exists.
// For a pinned release it names the releases that are published for the
// Kubernetes minor, from the EKS image names (one extra DescribeImages, on
// this error path only).
func (r *Resolver) aliasNotResolved(ctx context.Context, a Alias, req Request, p rules.Path, res *Result) rules.Findings {
	k := req.Kubernetes.String()
	if a.Latest() {
		return rules.Findings{rules.New(RuleNotFound, p,
			"none of the SSM parameters Karpenter reads for alias %s on Kubernetes %s exists, so it fails with \"failed to discover any AMIs for alias\". Tried:\n%sCheck the cluster's Kubernetes version and the region.",
			a, k, formatLookups(res.Lookups))}
	}
	detail := fmt.Sprintf("alias %s: release %s is not published for Kubernetes %s (pinned releases are per Kubernetes minor), so Karpenter fails with \"failed to discover any AMIs for alias\". Tried:\n%s",
		a, a.Version, k, formatLookups(res.Lookups))
	if published := r.publishedReleases(ctx, a.Family, k); len(published) > 0 {
		detail += fmt.Sprintf("Releases published for Kubernetes %s: %s (earliest %s, newest %s). Pin one of them, e.g. %q, or use %q.",
			k, strings.Join(lastN(published, 6), ", "), published[0], published[len(published)-1],
			a.Family.AliasName()+"@"+published[len(published)-1], a.Family.AliasName()+"@latest")
	} else {
		detail += fmt.Sprintf("Use %q, or a release published for Kubernetes %s.", a.Family.AliasName()+"@latest", k)
	}
	return rules.Findings{rules.New(RuleAliasNotPublished, p, "%s", detail)}
}

func (r *Resolver) publishedReleases(ctx context.Context, f amifamily.Family, k string) []string {
	pattern, re := f.Model().ReleaseNamePattern(k)
	if pattern == "" {
		return nil
	}
	imgs, err := r.Source.DescribeImages(ctx, awsclient.ImageQuery{
		Owners:  []string{"amazon"},
		Filters: []awsclient.Filter{{Name: "name", Values: []string{pattern}}},
	})
	if err != nil {
		return nil // the message is still useful without the list
	}
	seen := map[string]bool{}
	var out []string
	for _, img := range imgs {
		m := re.FindStringSubmatch(img.Name)
		if m == nil || seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		out = append(out, m[1])
	}
	sort.Slice(out, func(i, j int) bool { return versionLess(out[i], out[j]) })
	return out
}

// versionLess orders vYYYYMMDD strings and x.y.z versions.
func versionLess(a, b string) bool {
	pa, pb := splitVersion(a), splitVersion(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

func splitVersion(s string) []int {
	var out []int
	n := -1
	for _, c := range strings.TrimPrefix(s, "v") {
		if c >= '0' && c <= '9' {
			if n < 0 {
				n = 0
			}
			n = n*10 + int(c-'0')
			continue
		}
		if n >= 0 {
			out = append(out, n)
			n = -1
		}
	}
	if n >= 0 {
		out = append(out, n)
	}
	return out
}

func lastN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// The rules the checks of this file emit.
var (
	RuleMultipleTermsOneArch = rules.Register(rules.Rule{
		ID: "ami-terms-one-per-architecture", Severity: rules.Warning, Category: category,
		Title:     "only the newest image per architecture is used",
		Behaviour: "Without an alias Karpenter knows only an image's architecture, and keeps one image per requirement set: the newest non-deprecated amd64 image and the newest arm64 image. Other matches are discovered and never launched.",
		Source:    "A:pkg/providers/amifamily/ami.go DefaultProvider.amis / compareAMI",
		Bad:       custom("# both images are x86_64", term(`id = "ami-0aaaaaaaaaaaaaaaa"`), term(`id = "ami-0bbbbbbbbbbbbbbbb"`)),
		Good:      custom("# one image per architecture per EC2NodeClass; a second image needs a second EC2NodeClass", term(`id = "ami-0aaaaaaaaaaaaaaaa"`)),
	})
	RuleAliasNotPublished = rules.Register(rules.Rule{
		ID: "alias-not-published", Severity: rules.Error, Category: category,
		Title:     "the pinned alias release is not published for this Kubernetes version",
		Behaviour: "Pinned alias versions are per Kubernetes minor: none of the SSM parameters Karpenter reads exists, so it reports \"failed to discover any AMIs for alias\" and the EC2NodeClass never becomes ready (e.g. after a control-plane upgrade).",
		Source:    "A:pkg/providers/amifamily/al2023.go DescribeImageQuery",
		Bad:       rules.Body("# cluster on Kubernetes 1.32", term(`alias = "al2023@v20200101"`)),
		Good:      term(`alias = "al2023@v20251209"`),
	})
	RuleNotFound = rules.Register(rules.Rule{
		ID: "ami-not-found", Severity: rules.Error, Category: category,
		Title:     "the selector matches no image",
		Behaviour: "Karpenter sets AMIsReady=False with \"AMISelector did not match any AMIs\" and launches nothing for NodePools of this EC2NodeClass.",
		Source:    "A:pkg/controllers/nodeclass/ami.go AMI.Reconcile",
		Bad:       custom("# account 111122223333 has no image of that name", term(`name = "team-eks-node-al2023-*"`, `owner = "111122223333"`)),
		Good:      custom(term(`name = "team-eks-node-al2023-*"`, `owner = "self"`)),
	})
	RuleNotAvailable = rules.Register(rules.Rule{
		ID: "ami-not-available", Severity: rules.Error, Category: category,
		Title:     "the selector matches only images that are not available",
		Behaviour: "Karpenter asks DescribeImages for `state=available` only (since 1.3.0 / 1.2.2, PR #7672), so pending, failed or disabled images (a Packer build still running) are ignored; with nothing else matching the EC2NodeClass never becomes ready.",
		Source:    "A:pkg/providers/amifamily/types.go DescribeImagesInput; A #7652/#7672",
		Bad:       custom("# the only match is a pending Packer build", term(`name = "team-gpu-node-*"`)),
		Good:      custom("# wait for the build, or select a released image", term(`name = "team-eks-node-al2023-x86_64-*"`)),
	})
	RulePendingSelectable = rules.Register(rules.Rule{
		ID: "ami-pending-selectable", Severity: rules.Warning, Category: category,
		Title:     "this Karpenter release may launch images that are still pending",
		Behaviour: "Before 1.3.0 (and 1.2.2) Karpenter did not filter on `state=available`: a Packer image still being built can be selected, and its later completion shows as drift (A #7652).",
		Source:    "A #7652, fixed by PR #7672 in v1.3.0 and v1.2.2",
		Bad:       rules.WithProvider(custom(term(`name = "team-eks-node-*"`)), `karpenter_version = "1.2.0"`),
		Good:      rules.WithProvider(custom(term(`name = "team-eks-node-*"`)), `karpenter_version = "1.3"`),
	})
	RuleVariantSwap = rules.Register(rules.Rule{
		ID: "alias-variants-swapped", Severity: rules.Warning, Category: category,
		Title:     "Karpenter 1.0.0-1.0.2 swaps the NVIDIA and Neuron images",
		Behaviour: "In 1.0.0-1.0.2 the nvidia variant carried `instance-accelerator-count Exists` and the neuron variant `instance-gpu-count Exists`: NVIDIA instances booted the Neuron image and the reverse (fixed in 1.0.3).",
		Source:    "A PR #6976 (v1.0.3), A:pkg/providers/amifamily/types.go",
		Bad:       rules.WithProvider(rules.Block(`data "karpenter_ami" "x"`, `instance_type = "g5.xlarge"`, term(`alias = "al2023@latest"`)), `karpenter_version = "1.0.1"`),
		Good:      rules.Block(`provider "karpenter"`, `karpenter_version = "1.0.3"`),
	})
	RuleFirstMatchBug = rules.Register(rules.Rule{
		ID: "alias-first-match-capacity-bug", Severity: rules.Warning, Category: category,
		Title:     "before Karpenter 1.4 multi-variant aliases can confuse capacity learning",
		Behaviour: "Up to 1.3.x MapToInstanceTypes matched leniently; a node's synthetic instance type lacked the GPU keys, the first image (often the NVIDIA one) \"matched\" non-GPU nodes, the discovered-capacity cache was never filled and Karpenter kept launching nodes too small for the pod (#7925).",
		Source:    "A #7925, fixed by PR #7923 (v1.4.0)",
		Bad:       rules.WithProvider(term(`alias = "bottlerocket@latest"`), `karpenter_version = "1.3"`),
		Good:      rules.Block(`provider "karpenter"`, `karpenter_version = "1.4"`),
	})
)
