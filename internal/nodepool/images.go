package nodepool

import (
	"fmt"
	"sort"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Why a family gets no image.
type gapCause int

const (
	gapArch     gapCause = iota // no image of its architecture
	gapArm64GPU                 // arm64 GPU family, no arm64 NVIDIA image
	gapNeuronBR                 // Neuron family, Bottlerocket before 1.3
	gapOther
)

// imageFindings judges the mapping of the pool's families to the class's
// images: the architecture (nodepool-architecture-mismatch,
// nodepool-mixed-architectures), arm64 GPU families (arm64-gpu-no-image),
// Bottlerocket Neuron (nodepool-bottlerocket-neuron-before-1-3), other gaps
// (ami-no-compatible-image), GPU families on images chosen by architecture
// only (ami-non-alias-gpu-instance), AMD GPUs on the NVIDIA image
// (amd-gpu-nvidia-image), and the release-specific mapping bugs
// (alias-variants-swapped, alias-first-match-capacity-bug).
func imageFindings(p Pool, a instancetype.Admission, kept []string, m mapping, kv versions.Karpenter) rules.Findings {
	c := p.Class
	exact := exactAdmission(a)
	alias := aliasImages(c.AMIs)
	archs := classArchs(c)
	ids := imageIDs(c)
	karpErr := fmt.Sprintf("no instance types satisfy requirements of amis [%s]", strings.Join(ids, " "))

	keptByArch := map[string][]string{}
	for _, f := range kept {
		keptByArch[a.Facts[f].Architecture] = append(keptByArch[a.Facts[f].Architecture], f)
	}
	supplied := false
	for arch := range keptByArch {
		supplied = supplied || archs[arch]
	}
	if !supplied {
		return rules.Findings{rules.New(ruleArchMismatch, pathRequirements,
			"the pool admits only %s instance types (%s), and the class's images are %s only (%s): no instance type matches any image, so Karpenter fails every launch with %q and the pods stay pending. Require kubernetes.io/arch In [%s] (and families of that architecture), or select images of the pool's architecture in the class (an alias such as \"al2023@latest\" serves both).",
			strings.Join(sortedKeys(keptByArch), " and "), byArch(keptByArch), strings.Join(sortedKeys(archs), " and "), describeImages(c.AMIs), karpErr, quoteJoin(sortedKeys(archs)))}
	}

	var fs rules.Findings
	gaps := map[gapCause][]string{}
	for _, f := range sortedKeys(m.missing) {
		gaps[classifyGap(m.missing[f], c, alias, kv)] = append(gaps[classifyGap(m.missing[f], c, alias, kv)], f)
	}
	if a.Complete {
		fs = append(fs, mixedArchitectures(p, a, kept, archs, c)...)
	}
	chosen := selectsHardware(p)
	if fams := gaps[gapArm64GPU]; len(fams) > 0 {
		fs = append(fs, arm64GPUFinding(fams, c.Family, aliasName(c), ids, kv, exact, chosen))
	}
	if fams := gaps[gapOther]; len(fams) > 0 && (a.Complete || len(m.images) == 0) {
		f := rules.New(ruleNoImage, pathRequirements,
			"the admitted families %s match none of the class's images (%s), so Karpenter drops them at launch%s. Exclude them from the pool, or select images whose requirements they meet.",
			strings.Join(fams, ", "), describeImages(c.AMIs), noImageConsequence(m, karpErr))
		if len(m.images) > 0 {
			f = f.AsWarning()
		}
		fs = append(fs, f)
	}
	if !a.Complete {
		return fs // the rest asserts that families are admitted
	}
	fs = append(fs, bottlerocketNeuron(a, kept, m, c, alias, kv)...)
	fs = append(fs, gpuOnOwnImages(a, m, alias, chosen)...)
	if chosen {
		fs = append(fs, amdOnNVIDIA(a, m, alias)...)
	}
	fs = append(fs, variantSwap(a, m, alias, kv)...)
	fs = append(fs, firstMatch(m, c, alias, kv)...)
	return fs
}

func classifyGap(t instancetype.Type, c ClassFacts, alias bool, kv versions.Karpenter) gapCause {
	switch {
	case !classArchs(c)[t.Architecture]:
		return gapArch
	case alias && t.Architecture == instancetype.ARM64 && t.GPUManufacturer != "":
		return gapArm64GPU
	case alias && c.Family.Model().NeuronGap(kv) != "" && t.AcceleratorManufacturer == "aws":
		return gapNeuronBR
	}
	return gapOther
}

func noImageConsequence(m mapping, karpErr string) string {
	if len(m.images) == 0 {
		return fmt.Sprintf("; no admitted family gets an image, so every launch fails with %q", karpErr)
	}
	return fmt.Sprintf(" (the other families still launch: %s)", strings.Join(m.withImage(), ", "))
}

// aliasName guesses the alias for messages from the images' family.
func aliasName(c ClassFacts) string {
	name := c.Family.Model().AliasName()
	if !aliasImages(c.AMIs) || c.Family == "" || name == "" {
		return ""
	}
	return "the " + name + " alias"
}

// describeImages: "ami-1 (name, amd64), ami-2 (name, arm64 nvidia)".
func describeImages(amis []ami.AMI) string {
	var parts []string
	seen := map[string]bool{}
	for _, a := range amis {
		k := a.ID + string(a.Variant)
		if seen[k] {
			continue
		}
		seen[k] = true
		what := a.Architecture
		if a.Variant != "" {
			what += " " + string(a.Variant)
		}
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", a.ID, a.Name, what))
	}
	return strings.Join(parts, ", ")
}

// bottlerocketNeuron: nodepool-bottlerocket-neuron-before-1-3.
func bottlerocketNeuron(a instancetype.Admission, kept []string, m mapping, c ClassFacts, alias bool, kv versions.Karpenter) rules.Findings {
	if !alias || c.Family.Model().NeuronGap(kv) == "" {
		return nil
	}
	var fams []string
	for _, f := range kept {
		if a.Facts[f].Accelerator == instancetype.AcceleratorNeuron {
			fams = append(fams, f)
		}
	}
	if len(fams) == 0 {
		return nil
	}
	what := "get no image at all (1.1 and 1.2 query no Neuron-capable Bottlerocket image), so Karpenter drops them at launch"
	var got []string
	for _, f := range fams {
		for _, img := range m.images[f] {
			got = append(got, fmt.Sprintf("%s → %s (%s, %s)", f, img.ID, img.Name, img.Variant))
		}
	}
	if len(got) > 0 {
		what = "get the NVIDIA image (1.0.x maps Neuron instances to it): " + strings.Join(got, ", ") + "; it has no Neuron driver"
	}
	return rules.Findings{rules.New(ruleBottlerocketNeuron, pathRequirements,
		"Karpenter %s has no Neuron mapping for Bottlerocket: the Neuron families %s %s. Karpenter 1.3.0 and later give them the standard x86_64 image (PR #7722): upgrade, or use \"al2023@latest\", which has a neuron variant.",
		kv, strings.Join(fams, ", "), what).WithFix(rules.KarpenterVersion(`"1.3"`))}
}

// gpuOnOwnImages reuses ami-non-alias-gpu-instance.
func gpuOnOwnImages(a instancetype.Admission, m mapping, alias, chosen bool) rules.Findings {
	if alias {
		return nil
	}
	var got, fams []string
	for _, f := range sortedKeys(m.images) {
		fam := a.Facts[f]
		if !fam.HasGPU() && !fam.HasAcceleratorLabels() {
			continue
		}
		fams = append(fams, f)
		for _, img := range m.images[f] {
			got = append(got, fmt.Sprintf("%s → %s (%s)", f, img.ID, img.Name))
		}
	}
	if len(got) == 0 {
		return nil
	}
	if !chosen {
		// A pool that selects no hardware admits every GPU family, so a
		// GPU pod would land on the driverless image: one warning, with the
		// requirement that ends it, rather than the list of images.
		return rules.Findings{rules.New(ruleNonAliasGPU, pathRequirements,
			"the pool does not keep GPU/accelerator instances out, and its class's images are chosen by architecture only: it admits %s, which boot the same image as every other instance of their architecture, usually without GPU/Neuron drivers. A pod that requests nvidia.com/gpu or aws.amazon.com/neuron makes Karpenter launch one of them; the device plugin finds no driver, the pod stays pending. Keep them out with two requirements blocks, key = \"karpenter.k8s.aws/instance-gpu-count\" and key = \"karpenter.k8s.aws/instance-accelerator-count\", each with operator = \"DoesNotExist\", and give GPU workloads a separate EC2NodeClass with an alias (e.g. \"al2023@latest\", which has nvidia and neuron variants).",
			abbreviate(fams, 8))}
	}
	return rules.Findings{rules.New(ruleNonAliasGPU, pathRequirements,
		"the pool admits GPU/accelerator families that boot images chosen by architecture only: %s. Without an alias Karpenter knows only an image's architecture, so these instances boot the same image as every other instance of their architecture, usually without GPU/Neuron drivers. Use an alias (e.g. \"al2023@latest\", which has nvidia and neuron variants) in a separate EC2NodeClass for them, or keep them out of this pool.",
		strings.Join(got, ", "))}
}

// abbreviate joins the first n names and counts the rest.
func abbreviate(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// amdOnNVIDIA reuses amd-gpu-nvidia-image.
func amdOnNVIDIA(a instancetype.Admission, m mapping, alias bool) rules.Findings {
	if !alias {
		return nil
	}
	var got []string
	for _, f := range sortedKeys(m.images) {
		if a.Facts[f].GPUManufacturer != "amd" {
			continue
		}
		for _, img := range m.images[f] {
			got = append(got, fmt.Sprintf("%s → %s (%s, %s)", f, img.ID, img.Name, img.Variant))
		}
	}
	if len(got) == 0 {
		return nil
	}
	return rules.Findings{rules.New(ruleAMDGPU, pathRequirements,
		"the pool admits AMD GPU families, and Karpenter's nvidia variant is keyed on instance-gpu-count Exists whatever the manufacturer: %s, the NVIDIA image, without AMD drivers. Use a custom AMI with AMD drivers in a separate EC2NodeClass for them, or keep them out of this pool.",
		strings.Join(got, ", "))}
}

// variantSwap: alias-variants-swapped, Karpenter 1.0.0-1.0.2 swapped the
// nvidia and neuron requirements (the class's images carry the swapped sets
// already, so the mapping shows what those releases do).
func variantSwap(a instancetype.Admission, m mapping, alias bool, kv versions.Karpenter) rules.Findings {
	if !alias || kv.Minor != 0 || kv.AtLeast(0, 3) {
		return nil
	}
	var got []string
	for _, f := range sortedKeys(m.images) {
		fam := a.Facts[f]
		if !fam.HasGPU() && fam.Accelerator != instancetype.AcceleratorNeuron {
			continue
		}
		for _, img := range m.images[f] {
			got = append(got, fmt.Sprintf("%s → %s (%s, %s)", f, img.ID, img.Name, img.Variant))
		}
	}
	if len(got) == 0 {
		return nil
	}
	return rules.Findings{rules.New(ruleVariantSwap, pathNodeClass,
		"Karpenter %s swaps the requirements of the nvidia and neuron variants (fixed in 1.0.3, PR #6976): this pool's GPU and Neuron families get %s. Upgrade Karpenter to 1.0.3 or later.",
		kv, strings.Join(got, ", "))}
}

// firstMatch: alias-first-match-capacity-bug, before 1.4 Karpenter learned
// capacity by matching a node's requirements to images leniently (GPU keys
// undefined count as compatible), so a node whose real image is not the
// first lenient match never fills the capacity cache. Approximated per family: the first image
// compatible when the GPU and accelerator requirements are ignored.
func firstMatch(m mapping, c ClassFacts, alias bool, kv versions.Karpenter) rules.Findings {
	if !alias || kv.AtLeast(4, 0) {
		return nil
	}
	variants := map[amifamily.Variant]bool{}
	for _, img := range c.AMIs {
		variants[img.Variant] = true
	}
	if len(variants) < 2 {
		return nil
	}
	var got []string
	for _, f := range sortedKeys(m.images) {
		t := m.rep[f]
		labels := ami.InstanceFromType(t).Labels(c.Family)
		for i, img := range c.AMIs {
			if !ami.Compatible(withoutAcceleratorKeys(img.Requirements), labels) {
				continue
			}
			if strict := m.images[f]; len(strict) > 0 && strict[0].ID != c.AMIs[i].ID {
				got = append(got, fmt.Sprintf("%s boots %s but is matched to %s (%s)", f, strict[0].ID, img.ID, img.Variant))
			}
			break
		}
	}
	if len(got) == 0 {
		return nil
	}
	sort.Strings(got)
	return rules.Findings{rules.New(ruleFirstMatch, pathNodeClass,
		"Karpenter %s maps nodes to images leniently when learning their capacity (#7925): %s. For these nodes the discovered-capacity cache is never filled and Karpenter keeps sizing them from estimates (it can launch nodes too small for the pod). Upgrade to Karpenter 1.4.0 or later.",
		kv, strings.Join(got, "; "))}
}

func withoutAcceleratorKeys(rs []ami.Requirement) []ami.Requirement {
	var out []ami.Requirement
	for _, r := range rs {
		if r.Key != ami.LabelGPUCount && r.Key != ami.LabelAcceleratorCount {
			out = append(out, r)
		}
	}
	return out
}

// The rules the checks of this file emit.
var (
	ruleArchMismatch = rules.Register(rules.Rule{
		ID: "nodepool-architecture-mismatch", Severity: rules.Error, Category: ClassCategory,
		Title:     "the pool admits no architecture the class has an image for",
		Behaviour: "Karpenter maps every candidate instance type to the first compatible image; when none of the pool's instance types matches any image of the class it fails every launch with \"no instance types satisfy requirements of amis [ami-...]\" and the pods stay pending.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go DefaultResolver.Resolve; ami.go MapToInstanceTypes; A #7211",
		Bad:       exampleOn("custom_amd64", reqs(req("kubernetes.io/arch", "In", "arm64"))),
		Good:      exampleOn("custom_amd64", reqs(req("kubernetes.io/arch", "In", "amd64"))),
	})
	ruleBottlerocketNeuron = rules.Register(rules.Rule{
		ID: "nodepool-bottlerocket-neuron-before-1-3", Severity: rules.Warning, Category: ClassCategory,
		Title:     "Bottlerocket alias with Neuron families before Karpenter 1.3",
		Behaviour: "Before 1.3.0 Karpenter had no Neuron mapping for Bottlerocket: 1.0.x gave Neuron instances the NVIDIA image, 1.1-1.2 no image at all (they are dropped at launch). From 1.3.0 they get the standard x86_64 image (PR #7722).",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/bottlerocket.go; PRs #7304, #7722",
		Bad:       atVersion("1.2", exampleOn("bottlerocket", families("inf2"))),
		Good:      atVersion("1.3", exampleOn("bottlerocket", families("inf2"))),
	})
)
