package nodeclass

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// PlanInput is what a plan of the class knows: the configuration (fully
// known, or Plan is not called), the resolved images, and the cluster facts
// the bootstrap block may take defaults from.
type PlanInput struct {
	Class     Class
	AMIs      ami.Result
	Cluster   cluster.Facts
	Karpenter versions.Karpenter
}

// Planned is the outcome of a plan.
type Planned struct {
	Findings rules.Findings
	// Family is the resolved amiFamily.
	Family amifamily.Family
	// UserData is the userData of the manifest: the rendered bootstrap for
	// Custom classes with a bootstrap block, else the literal user_data.
	UserData *string
	Manifest manifest.EC2NodeClass
	// RegisteredTaints is what a Custom class's userData registers (nil for
	// other families, whose userData Karpenter renders per NodePool).
	RegisteredTaints []taints.Taint
}

// Plan checks what needs the resolved images and renders the manifest.
func Plan(in PlanInput) Planned {
	c, kv := in.Class, in.Karpenter
	var out Planned
	family, ok := ami.ResolvedFamily(c.Family, c.Terms, kv)
	if !ok {
		out.Findings = append(out.Findings, FamilyRequired(in.AMIs))
		return out
	}
	out.Family = family
	out.UserData = c.Spec.UserData
	bootstraps := family.Model().KarpenterBootstraps()
	if c.Bootstrap != nil && !bootstraps && c.Spec.UserData == nil {
		b := withClusterDefaults(*c.Bootstrap, in.Cluster)
		ud, fs := userdata.RenderCustom(b)
		out.Findings = append(out.Findings, fs.Under(pathBootstrap)...)
		if !fs.HasErrors() {
			out.UserData = &ud
			out.RegisteredTaints = b.RegisteredTaints()
		}
	} else if !bootstraps && c.Spec.UserData != nil {
		out.RegisteredTaints = lint.RegisteredTaints(*c.Spec.UserData, kv)
	}
	out.Findings = append(out.Findings, otherClusterFindings(c, family, in.Cluster.Name)...)
	out.Findings = append(out.Findings, customNoUserDataFindings(c, family, in.AMIs)...)
	out.Findings = append(out.Findings, imageFamilyFindings(family, out.UserData, in.AMIs, kv)...)
	out.Findings = append(out.Findings, snapshotFindings(c, family, in.AMIs)...)
	if i, ok := ami.AliasTerm(c.Terms); ok && !c.PinAMIs && strings.HasSuffix(c.Terms[i].Alias, "@latest") {
		// Pinning the resolved image ids (the provider's pin_amis) holds a
		// release too: the manifest then names them.
		pinIDs := rules.Fix{Field: rules.Root("pin_amis"), Value: "true"}
		advice := "Pin a release so that a new one shows up as a diff in a plan, or select the resolved images by id."
		fix := rules.Fix{Value: strconv.Quote(pinnedExample(in.AMIs, c.Terms[i].Alias)), Acknowledge: true, Or: []rules.Fix{pinIDs}}
		if in.AMIs.Alias != nil && !in.AMIs.Alias.Family.Model().Pinnable() {
			// Windows aliases take only @latest (alias-windows-version).
			advice = fmt.Sprintf("%s aliases cannot be pinned (Karpenter accepts only @latest for them), so select the resolved images by id: a new image then shows up as a diff in a plan.", in.AMIs.Alias.Family)
			fix = pinIDs
			fix.Acknowledge = true
		}
		out.Findings = append(out.Findings, rules.New(ruleLatestDrift, pathAMITerms.Index(i).Attr("alias"),
			"alias %q follows every EKS image release: each new image makes every node of this class drifted, and Karpenter replaces them within the disruption budgets, outside any change window. %s",
			c.Terms[i].Alias, advice).WithFix(fix))
	}
	out.Manifest = buildManifest(c, family, out.UserData, in.AMIs)
	return out
}

// FamilyRequired is the CRD's "must specify amiFamily if amiSelectorTerms
// does not contain an alias" at plan, with the family the images suggest.
func FamilyRequired(res ami.Result) rules.Finding {
	var hints []string
	var fix amifamily.Family
	for _, a := range res.AMIs {
		if g, ok := imageFamily(a.Image); ok && !slices.Contains(hints, g.Name) {
			if len(hints) == 0 {
				fix = g.Fix
			}
			hints = append(hints, g.Name)
		}
	}
	detail := "no amiFamily and no alias: the API server rejects it with \"must specify amiFamily if amiSelectorTerms does not contain an alias\"."
	if len(hints) == 0 {
		return rules.New(ami.RuleFamilyRequired, pathAMIFamily, "%s", detail)
	}
	detail += fmt.Sprintf(" The selected images look like %s: set amiFamily %s (or Custom with your own userData).", strings.Join(hints, " and "), fix)
	return rules.New(ami.RuleFamilyRequired, pathAMIFamily, "%s", detail).WithFix(rules.Fix{Value: strconv.Quote(string(fix))})
}

func withClusterDefaults(b userdata.Bootstrap, f cluster.Facts) userdata.Bootstrap {
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&b.ClusterName, f.Name)
	fill(&b.APIServerEndpoint, f.Endpoint)
	fill(&b.CertificateAuthority, f.CertificateAuthority)
	fill(&b.ServiceCIDR, f.ServiceCIDR)
	fill(&b.ClusterDNS, f.ClusterDNS)
	return b
}

// BootstrapNeeds lists the cluster facts a bootstrap block leaves to the
// provider's cluster block.
func BootstrapNeeds(b userdata.Bootstrap) []string {
	var need []string
	for _, f := range []struct {
		v, name string
	}{
		{b.ClusterName, cluster.FieldName}, {b.APIServerEndpoint, cluster.FieldEndpoint},
		{b.CertificateAuthority, cluster.FieldCertificateAuthority}, {b.ServiceCIDR, cluster.FieldServiceCIDR},
		{b.ClusterDNS, cluster.FieldClusterDNS},
	} {
		if f.v == "" {
			need = append(need, f.name)
		}
	}
	return need
}

func pinnedExample(res ami.Result, alias string) string {
	if res.Alias != nil {
		if v, ok := releaseOf(*res.Alias, res.AMIs); ok {
			return res.Alias.Family.AliasName() + "@" + v
		}
	}
	return strings.SplitN(alias, "@", 2)[0] + "@<release>"
}

// releaseOf is the one release every image of an alias resolution belongs
// to, read from the EKS image names (amazon-eks-node-al2023-...-v20251209,
// bottlerocket-aws-k8s-...-v1.51.0-47438798); false when the images do not
// agree or the family has no pinned versions (Windows).
func releaseOf(a ami.Alias, amis []ami.AMI) (string, bool) {
	m := a.Family.Model()
	release := ""
	for _, img := range amis {
		r, ok := m.ReleaseOfImage(img.Name)
		if !ok || (release != "" && r != release) {
			return "", false
		}
		release = r
	}
	return release, release != ""
}

// pinnedAlias is the alias pin_amis writes for an alias term: the alias at
// the release it resolves to now (already pinned aliases stay as written).
func pinnedAlias(c Class, res ami.Result) (string, bool) {
	if !c.PinAMIs || res.Alias == nil {
		return "", false
	}
	if !res.Alias.Latest() {
		return res.Alias.String(), true
	}
	v, ok := releaseOf(*res.Alias, res.AMIs)
	if !ok {
		return "", false
	}
	return res.Alias.Family.AliasName() + "@" + v, true
}

func buildManifest(c Class, family amifamily.Family, userData *string, res ami.Result) manifest.EC2NodeClass {
	spec := c.Spec
	spec.UserData = userData
	spec.AMIFamily = c.Family
	spec.AMISelectorTerms = nil
	if pinned, ok := pinnedAlias(c, res); ok {
		// Pinned alias: the release the alias resolves to now. id terms would
		// lose the variants (Karpenter keeps one image per architecture for
		// ids), the pinned alias keeps them and changes only in a plan diff.
		spec.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: pinned}}
	} else if c.PinAMIs && len(res.AMIs) > 0 {
		// Pinned: the resolved images as id terms, so an image changes only
		// through a visible plan diff. Without an alias amiFamily is required.
		spec.AMIFamily = string(family)
		ids := map[string]bool{}
		for _, a := range res.AMIs {
			if !ids[a.ID] {
				ids[a.ID] = true
				spec.AMISelectorTerms = append(spec.AMISelectorTerms, manifest.AMISelectorTerm{ID: a.ID})
			}
		}
		sort.Slice(spec.AMISelectorTerms, func(i, j int) bool { return spec.AMISelectorTerms[i].ID < spec.AMISelectorTerms[j].ID })
	} else {
		for _, t := range c.Terms {
			spec.AMISelectorTerms = append(spec.AMISelectorTerms, manifest.AMISelectorTerm{
				Alias: t.Alias, ID: t.ID, Name: t.Name, Owner: t.Owner, Tags: t.Tags, SSMParameter: t.SSMParameter,
			})
		}
	}
	return manifest.EC2NodeClass{
		APIVersion: manifest.EC2NodeClassAPIVersion, Kind: manifest.EC2NodeClassKind,
		Metadata: manifest.ObjectMeta{Name: c.Name, Labels: c.Labels, Annotations: c.Annotations},
		Spec:     spec,
	}
}

// imageFamilyFindings compares the class's userData format with the family
// of the images it can launch: amiFamily only picks the userData format
// (aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md
// "amiFamily"), which the image must be able to read.
func imageFamilyFindings(family amifamily.Family, userData *string, res ami.Result, kv versions.Karpenter) rules.Findings {
	bootstraps := family.Model().KarpenterBootstraps()
	if res.Alias != nil {
		// Alias images are the alias family, which CEL ties to amiFamily;
		// Custom userData on them was linted at validate (validateUserData).
		return nil
	}
	var fs rules.Findings
	byFamily := map[string][]awsclient.Image{}
	guesses := map[string]amifamily.ImageGuess{}
	var order []string
	seen := map[string]bool{}
	for _, a := range res.AMIs {
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		g, ok := imageFamily(a.Image)
		if !ok {
			continue
		}
		f := g.Name
		if _, ok := byFamily[f]; !ok {
			order = append(order, f)
		}
		byFamily[f] = append(byFamily[f], a.Image)
		g.Sure = g.Sure || guesses[f].Sure
		guesses[f] = g
	}
	for _, f := range order {
		imgs, g := byFamily[f], guesses[f]
		if bootstraps {
			if g.Reads(family) {
				continue
			}
			fd := rules.New(ruleImageFamily, pathAMIFamily,
				"amiFamily is %s, so Karpenter renders %s userData, but %s %s a %s image: it cannot read that format, never joins the cluster, and the NodeClaim is deleted after 15 minutes. Set amiFamily %s, or select %s images.",
				family, family.Model().UserDataFormat(), describeImages(imgs), map[bool]string{true: "is", false: "looks like"}[g.Sure], f, g.Fix, family).
				WithFix(rules.Fix{Value: strconv.Quote(string(g.Fix))})
			if !g.Sure {
				fd = fd.AsWarning()
			}
			fs = append(fs, fd)
			continue
		}
		if userData == nil || !g.Linted() {
			continue
		}
		fs = append(fs, customOnImages(g, describeImages(imgs)+", which "+map[bool]string{true: "is", false: "looks like"}[g.Sure]+" a "+f+" image", *userData, kv)...)
	}
	return fs
}

// customOnImages lints a Custom class's userData as the images it launches
// on (of guess g, described by on) read it. Karpenter passes Custom
// userData unchanged, so the image's own reader decides: a format it cannot
// read is image-family-mismatch; the other rules of that reader (nodeadm's
// MIME reading, AL2's kubelet mechanisms on AL2023) keep their own ids.
func customOnImages(g amifamily.ImageGuess, on, userData string, kv versions.Karpenter) rules.Findings {
	var fs rules.Findings
	for _, lf := range lint.CustomOn(g.Fix, userData, kv) {
		var fd rules.Finding
		switch lf.Rule.ID {
		case "userdata-format-mismatch", "al2023-bootstrap-sh":
			fd = rules.New(ruleImageFamily, pathUserData, "the Custom userData is launched on %s: %s", on, lf.Detail)
		case "mime-unterminated", "al2023-al2-kubelet-config":
			fd = rules.Findings{lf}.Under(pathUserData)[0]
			fd.Detail = "the Custom userData is launched on " + on + ": " + lf.Detail
		default:
			continue
		}
		if !g.Sure {
			fd = fd.AsWarning()
		}
		fs = append(fs, fd)
	}
	return fs
}

func describeImages(imgs []awsclient.Image) string {
	var parts []string
	for i, img := range imgs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(imgs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", img.ID, img.Name))
	}
	return strings.Join(parts, ", ")
}

// customNoUserDataFindings judges a Custom class without userData from its
// images (an alias was judged at validate): an error when every image is an
// EKS-optimized one, which needs userData to join; a warning otherwise,
// since a custom image may bootstrap itself.
func customNoUserDataFindings(c Class, family amifamily.Family, res ami.Result) rules.Findings {
	if _, isAlias := ami.AliasTerm(c.Terms); isAlias || !customWithoutUserData(c, family, true) || len(res.AMIs) == 0 {
		return nil
	}
	var custom []string
	for _, a := range res.AMIs {
		if g, _ := imageFamily(a.Image); !g.Sure {
			custom = append(custom, a.ID)
		}
	}
	if len(custom) == 0 {
		return rules.Findings{rules.New(ruleCustomNoUserData, pathUserData,
			"amiFamily is Custom and no userData is set, and the selected images (%s) are EKS-optimized images, which do not bootstrap themselves. %s", describeImages(images(res)), customNoUserDataEffect).WithFix(renderBootstrap)}
	}
	return rules.Findings{rules.New(ruleCustomNoUserData, pathUserData,
		"amiFamily is Custom and no userData is set. That is right only if the images (%s) bootstrap the node themselves: Karpenter passes Custom userData through unchanged and adds nothing. If they do not, the node never joins and its NodeClaim is deleted after the 15-minute registration timeout, over and over; give it userData that bootstraps the node (e.g. nodeadm's) and registers karpenter.sh/unregistered:NoExecute.", strings.Join(custom, ", ")).
		AsWarning().WithFix(ackable(renderBootstrap))}
}

func images(res ami.Result) []awsclient.Image {
	out := make([]awsclient.Image, len(res.AMIs))
	for i, a := range res.AMIs {
		out[i] = a.Image
	}
	return out
}

// PlanChecks says which plan-time checks still apply after Validate found
// the errors in validated. Each reads part of the class: the image checks
// (resolution, snapshots, image family, userData format) its AMI terms,
// ami_family and bootstrap; the readiness reads its subnet, security group
// and capacity reservation terms, role and instance profile. An error in
// what one reads stops it (it would repeat the error or build on a value
// Karpenter rejects); an error anywhere else does not, so the plan reports
// both. A near miss never stops anything: Karpenter takes its value as
// written.
func PlanChecks(validated rules.Findings) (images, readiness bool) {
	images, readiness = true, true
	for _, f := range validated {
		if f.Severity != rules.Error || f.Rule.Acknowledgeable {
			continue
		}
		for _, p := range []rules.Path{pathAMITerms, pathAMIFamily, pathBootstrap} {
			if p.Contains(f.Path) || f.Path.IsEmpty() {
				images = false
			}
		}
		for _, p := range []rules.Path{pathSubnets, pathSGs, pathReservations, pathRole, pathProfile} {
			if p.Contains(f.Path) || f.Path.IsEmpty() {
				readiness = false
			}
		}
	}
	return images, readiness
}

// The rules the checks of this file emit.
var (
	ruleCustomNoUserData = rules.Register(rules.Rule{
		ID: "custom-user-data-missing", Severity: rules.Error, Category: category,
		Title:     "a Custom EC2NodeClass has no userData",
		Behaviour: "Karpenter passes Custom userData through unchanged and adds nothing. EKS-optimized images (an alias, or images named as EKS publishes them) do not bootstrap themselves: the instance boots, never joins the cluster, and the NodeClaim is deleted after the 15-minute registration timeout, over and over; that is an error. Karpenter accepts the class, and a custom image may bootstrap itself, so with other images it is a warning (acknowledge it when the image does).",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go; pkg/apis/v1/ec2nodeclass_validation_cel_test.go (Custom classes without userData are accepted)",
		Bad:       rules.Body(`ami_family = "Custom"`, `ami_selector_terms { alias = "al2023@latest" }`),
		Good:      rules.Body(`ami_family = "Custom"`, `ami_selector_terms { alias = "al2023@latest" }`, `bootstrap { format = "nodeadm" }`),
	})
	ruleImageFamily = rules.Register(rules.Rule{
		ID: "image-family-mismatch", Severity: rules.Error, Category: category,
		Title:     "the images are of another family than the userData format",
		Behaviour: "amiFamily only decides the userData format; it does not select images. An AL2023 class whose images are Bottlerocket renders a nodeadm MIME document the image cannot read (Bottlerocket wants TOML); bootstrap.sh exits 1 on AL2023 images; shell userData means nothing to Bottlerocket. The node never joins and is deleted after 15 minutes.",
		Source:    "A:website/content/en/docs/concepts/nodeclasses.md §amiFamily; E:templates/al2023/runtime/rootfs/etc/eks/bootstrap.sh (exits 1)",
		Bad:       rules.Body(`ami_family = "AL2023"`, rules.Block("ami_selector_terms", `name = "bottlerocket-aws-k8s-1.32-x86_64-*"`, `owner = "amazon"`)),
		Good:      rules.Body(`ami_family = "Bottlerocket"`, rules.Block("ami_selector_terms", `name = "bottlerocket-aws-k8s-1.32-x86_64-*"`, `owner = "amazon"`)),
	})
)

// The rules the checks of this file emit.
var (
	ruleLatestDrift = rules.Register(rules.Rule{
		ID: "alias-latest-drift", Severity: rules.Warning, Category: category,
		Title:     "`@latest` replaces every node when EKS publishes an image",
		Behaviour: "A new image under the recommended/latest SSM parameter makes every node of the class drifted (drift.go isAMIDrifted); Karpenter replaces them within the disruption budgets, outside any change window. The docs advise against @latest in production.",
		Source:    "A:pkg/cloudprovider/drift.go isAMIDrifted; A docs (nodeclasses.md, \"pin AMIs\")",
		Bad:       `ami_selector_terms { alias = "al2023@latest" }`,
		Good:      rules.Body("# new releases show as a plan diff instead of a fleet-wide replacement", `pin_amis = true`, `ami_selector_terms { alias = "al2023@latest" }`),
	})
)
