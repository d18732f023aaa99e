package nodeclass

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/objectmeta"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Validate applies every rule decidable from the configured values, for
// Karpenter release kv. Values listed in c.Unknown are skipped; the same
// checks run again at plan when they are known.
func Validate(c Class, kv versions.Karpenter) rules.Findings {
	var fs rules.Findings
	u := c.Unknown
	if !u.Is(pathName) && c.Name != "" {
		if errs := validation.IsDNS1123Subdomain(c.Name); len(errs) > 0 {
			fs = append(fs, rules.New(ruleName, pathName,
				"%q: %s. The API server rejects the EC2NodeClass; write e.g. %q.", c.Name, strings.Join(errs, "; "), suggestName(c.Name)))
		}
	}
	if !u.Within(pathAMITerms) {
		fs = append(fs, ami.ValidateTerms(c.Terms, kv)...)
	} else {
		fs = append(fs, knownTermFindings(c, kv)...)
	}
	if !u.Within(pathAMITerms) || !u.Is(pathAMIFamily) {
		fs = append(fs, withFamilyHint(ami.ValidateFamily(c.Family, !u.Is(pathAMIFamily), c.Terms, kv, true), c.Terms)...)
	}
	if !u.Within(objectmeta.Root) {
		fs = append(fs, objectmeta.Validate(c.Labels, c.Annotations)...)
	}
	fs = append(fs, validateIdentity(c)...)
	fs = append(fs, validateSelectors(c, kv)...)
	fs = append(fs, validateTags(c)...)
	fs = append(fs, validateBlockDevices(c)...)
	fs = append(fs, validateMetadata(c)...)
	fs = append(fs, validateKubelet(c, kv)...)
	fs = append(fs, validateFields(c, kv)...)
	if p := c.Spec.InstanceStorePolicy; p != "" && !u.Is(pathStorePolicy) && p != "RAID0" {
		fs = append(fs, rules.New(ruleStorePolicy, pathStorePolicy,
			"%q: the CRD accepts only \"RAID0\" (Karpenter then stripes the instance store volumes and uses them for ephemeral storage). Remove the attribute to leave instance stores alone.", p))
	}
	fs = append(fs, validateUserData(c, kv)...)
	return fs
}

// withFamilyHint names the family a missing ami_family should be when the
// name terms say it, offline: EKS-optimized and Bottlerocket image names
// carry their family ("bottlerocket-aws-k8s-1.32-x86_64-*"). At plan the
// selected images themselves are asked (FamilyRequired).
func withFamilyHint(fs rules.Findings, terms []ami.Term) rules.Findings {
	for i, f := range fs {
		if f.Rule.ID != ami.RuleFamilyRequired.ID {
			continue
		}
		var family amifamily.ImageGuess
		var names []string
		for _, t := range terms {
			if t.Name == "" {
				continue
			}
			fam, ok := imageFamily(awsclient.Image{Name: t.Name})
			if !ok || (family.Name != "" && fam.Name != family.Name) {
				return fs // no hint, or conflicting hints
			}
			family = fam
			names = append(names, fmt.Sprintf("%q", t.Name))
		}
		if family.Name == "" {
			return fs
		}
		out := append(rules.Findings(nil), fs...)
		out[i] = rules.New(ami.RuleFamilyRequired, f.Path,
			"no amiFamily and no alias: the API server rejects it with \"must specify amiFamily if amiSelectorTerms does not contain an alias\". The name terms %s select %s images: set amiFamily %s (or Custom with your own userData).",
			strings.Join(names, ", "), family.Name, family.Fix).WithFix(rules.Fix{Value: strconv.Quote(string(family.Fix))})
		return out
	}
	return fs
}

// knownTermFindings validates terms when some of their values are unknown:
// ValidateTerms already skips unknown fields; only the list itself being
// unknown stops it.
func knownTermFindings(c Class, kv versions.Karpenter) rules.Findings {
	if c.Unknown.Is(pathAMITerms) {
		return nil
	}
	return ami.ValidateTerms(c.Terms, kv)
}

// notInName is what a DNS subdomain name cannot hold, compiled once.
var notInName = regexp.MustCompile(`[^a-z0-9.-]+`)

func suggestName(s string) string {
	s = strings.ToLower(s)
	s = notInName.ReplaceAllString(s, "-")
	return strings.Trim(s, "-.")
}

func validateIdentity(c Class) rules.Findings {
	u := c.Unknown
	if u.Is(pathRole) || u.Is(pathProfile) {
		return nil
	}
	role, profile := c.Spec.Role, c.Spec.InstanceProfile
	switch {
	case role != "" && profile != "":
		return rules.Findings{rules.New(ruleIdentity, pathRole,
			"both role %q and instanceProfile %q are set; the API server rejects it (\"must specify exactly one of ['role', 'instanceProfile']\"). Keep role (Karpenter then manages the instance profile) or instanceProfile (you manage it), not both.", role, profile)}
	case role == "" && profile == "":
		return rules.Findings{rules.New(ruleIdentity, pathRole,
			"neither role nor instanceProfile is set; the API server rejects it (\"must specify exactly one of ['role', 'instanceProfile']\"). Set role to the node IAM role name, e.g. module.karpenter.node_iam_role_name.")}
	}
	return nil
}

var (
	subnetIDRE  = regexp.MustCompile(`^subnet-[0-9a-z]+$`)
	sgIDRE      = regexp.MustCompile(`^sg-[0-9a-z]+$`)
	crIDRE      = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	accountIDRE = regexp.MustCompile(`^[0-9]{12}$`)
)

// selectorTerm is the common shape of subnet, security group and capacity
// reservation terms.
type selectorTerm struct {
	id, name, owner, criteria string
	tags                      map[string]string
}

func validateSelectors(c Class, kv versions.Karpenter) rules.Findings {
	var fs rules.Findings
	subnets := make([]selectorTerm, len(c.Spec.SubnetSelectorTerms))
	for i, t := range c.Spec.SubnetSelectorTerms {
		subnets[i] = selectorTerm{id: t.ID, tags: t.Tags}
	}
	fs = append(fs, validateSelectorList(c.Unknown, pathSubnets, "subnet", subnets, true, subnetIDRE, "subnet-0123456789abcdef0")...)
	sgs := make([]selectorTerm, len(c.Spec.SecurityGroupSelectorTerms))
	for i, t := range c.Spec.SecurityGroupSelectorTerms {
		sgs[i] = selectorTerm{id: t.ID, name: t.Name, tags: t.Tags}
	}
	fs = append(fs, validateSelectorList(c.Unknown, pathSGs, "security group", sgs, true, sgIDRE, "sg-0123456789abcdef0")...)
	if len(c.Spec.CapacityReservationSelectorTerms) > 0 && !c.Unknown.Is(pathReservations) {
		if !kv.AtLeast(3, 0) {
			fs = append(fs, rules.New(ruleReservations, pathReservations,
				"capacityReservationSelectorTerms exist from Karpenter 1.3.0 and the checks run against Karpenter %s: the older CRD prunes the field and the reservations are never used. Upgrade Karpenter or remove the field.", kv).
				WithFix(rules.KarpenterVersion(`"1.3"`)))
		}
		crs := make([]selectorTerm, len(c.Spec.CapacityReservationSelectorTerms))
		for i, t := range c.Spec.CapacityReservationSelectorTerms {
			crs[i] = selectorTerm{id: t.ID, owner: t.OwnerID, criteria: t.InstanceMatchCriteria, tags: t.Tags}
			p := pathReservations.Index(i)
			if t.InstanceMatchCriteria != "" && !c.Unknown.Is(p.Attr("instance_match_criteria")) && t.InstanceMatchCriteria != "open" && t.InstanceMatchCriteria != "targeted" {
				fs = append(fs, rules.New(ruleReservations, p.Attr("instance_match_criteria"),
					"%q: the CRD accepts \"open\" (reservations any matching launch may use) or \"targeted\" (only launches that name the reservation).", t.InstanceMatchCriteria))
			}
			if t.OwnerID != "" && !c.Unknown.Is(p.Attr("owner_id")) && !accountIDRE.MatchString(t.OwnerID) {
				fs = append(fs, rules.New(ruleSelectorID, p.Attr("owner_id"),
					"%q is not a 12-digit AWS account id; the CRD pattern is ^[0-9]{12}$.", t.OwnerID))
			}
		}
		fs = append(fs, validateSelectorList(c.Unknown, pathReservations, "capacity reservation", crs, false, crIDRE, "cr-0123456789abcdef0")...)
	}
	return fs
}

func validateSelectorList(u rules.Unknowns, p rules.Path, kind string, terms []selectorTerm, required bool, idRE *regexp.Regexp, example string) rules.Findings {
	if u.Is(p) {
		return nil
	}
	var fs rules.Findings
	if required && len(terms) == 0 {
		fs = append(fs, rules.New(ruleSelectorCount, p,
			"0 %s selector terms; the CRD requires at least 1 and at most 30. Without them Karpenter cannot launch: select by tags, e.g. the cluster's discovery tag.", kind).
			WithFix(selectByDiscoveryTag(p.Index(0))))
	} else if len(terms) > 30 {
		fs = append(fs, rules.New(ruleSelectorCount, p,
			"%d %s selector terms; the CRD requires %s at most 30: select by tags instead, e.g. the cluster's discovery tag.",
			len(terms), kind, map[bool]string{true: "at least 1 and", false: ""}[required]))
	}
	for i, t := range terms {
		tp := p.Index(i)
		if u.Within(tp) {
			// Cross-field checks need every field; single-field checks below
			// still run where their field is known.
			if t.id != "" && !u.Is(tp.Attr("id")) && !idRE.MatchString(t.id) {
				fs = append(fs, idFinding(tp, kind, t.id, example))
			}
			continue
		}
		var set []string
		for _, f := range []struct {
			name string
			on   bool
		}{{"id", t.id != ""}, {"name", t.name != ""}, {"owner_id", t.owner != ""}, {"instance_match_criteria", t.criteria != ""}, {"tags", len(t.tags) > 0}} {
			if f.on {
				set = append(set, f.name)
			}
		}
		if len(set) == 0 || (len(set) == 1 && set[0] == "owner_id") {
			fs = append(fs, rules.New(ruleSelectorEmpty, tp,
				"the %s selector term selects nothing; the API server rejects it (\"expected at least one, got none\"). Select by tags (e.g. the cluster's discovery tag) or by id.", kind).
				WithFix(selectByDiscoveryTag(tp)))
		}
		if t.id != "" {
			if len(set) > 1 {
				fs = append(fs, rules.New(ruleSelectorExclusive, tp,
					"the %s selector term sets id together with %s. The CRD's rule only fails when every term mixes them, so this one would pass the API server and Karpenter would match the id and ignore the rest. Put the id in its own term.",
					kind, strings.Join(set[1:], ", ")).WithFix(rules.Fix{Field: p.Index(len(terms)).Attr("id"), Value: strconv.Quote(t.id), And: []rules.Fix{{Field: tp.Attr("id"), Remove: true}}}))
			}
			if !idRE.MatchString(t.id) {
				fs = append(fs, idFinding(tp, kind, t.id, example))
			}
		}
		if t.name != "" && t.id == "" && len(set) > 1 {
			fs = append(fs, rules.New(ruleSelectorExclusive, tp,
				"the security group term sets name together with %s; Karpenter matches the name alone (\"'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term\"). Put the name in its own term.",
				strings.Join(set[1:], ", ")).WithFix(rules.Fix{Field: p.Index(len(terms)).Attr("name"), Value: strconv.Quote(t.name),
				And: []rules.Fix{{Field: tp.Attr("name"), Remove: true}}}))
		}
		fs = append(fs, validateSelectorTags(tp.Attr("tags"), t.tags)...)
	}
	return fs
}

func idFinding(p rules.Path, kind, id, example string) rules.Finding {
	return rules.New(ruleSelectorID, p.Attr("id"),
		"%q is not a %s id; EC2 would match nothing (the CRD's id patterns are unanchored and may let it through). Write the whole id, e.g. %q.", id, kind, example)
}

func validateSelectorTags(p rules.Path, tags map[string]string) rules.Findings {
	var fs rules.Findings
	if len(tags) > 20 {
		fs = append(fs, rules.New(ruleSelectorTags, p, "%d tags; the CRD allows at most 20 per selector term (maxProperties).", len(tags)))
	}
	for _, k := range sortedKeys(tags) {
		switch {
		case k == "":
			fs = append(fs, rules.New(ruleSelectorTags, p, "a tag has an empty key; the API server rejects it (\"empty tag keys or values aren't supported\")."))
		case tags[k] == "":
			fs = append(fs, rules.New(ruleSelectorTags, p.Key(k),
				"tag %q has an empty value; the API server rejects it (\"empty tag keys or values aren't supported\"). To match any value write %q = \"*\".", k, k))
		}
	}
	return fs
}

// restrictedTags are the CRD's reserved tag keys (CEL 32-36).
var restrictedTags = []struct{ match, why string }{
	{"eks:eks-cluster-name", "EKS sets it on every node"},
	{"kubernetes.io/cluster/", "the cloud provider uses it to find the cluster's instances"},
	{"karpenter.sh/nodepool", "Karpenter sets it to the NodePool of each instance"},
	{"karpenter.sh/nodeclaim", "Karpenter sets it to the NodeClaim of each instance"},
	{"karpenter.k8s.aws/ec2nodeclass", "Karpenter sets it to the EC2NodeClass of each instance"},
}

func validateTags(c Class) rules.Findings {
	if c.Unknown.Is(pathTags) {
		return nil
	}
	var fs rules.Findings
	for _, k := range sortedKeys(c.Spec.Tags) {
		if k == "" {
			fs = append(fs, rules.New(ruleTags, pathTags, "a tag has an empty key; the API server rejects it (\"empty tag keys aren't supported\")."))
			continue
		}
		for _, r := range restrictedTags {
			if k == r.match || (strings.HasSuffix(r.match, "/") && strings.HasPrefix(k, strings.TrimSuffix(r.match, "/"))) {
				fs = append(fs, rules.New(ruleTags, pathTags.Key(k),
					"tag %q is reserved: %s. The API server rejects it (\"tag contains a restricted tag matching %s\"). Remove it; Karpenter tags its instances itself.", k, r.why, r.match))
			}
		}
	}
	return fs
}

func validateUserData(c Class, kv versions.Karpenter) rules.Findings {
	u := c.Unknown
	var fs rules.Findings
	family, familyKnown := amifamily.Family(""), false
	if !u.Is(pathAMIFamily) && !u.Within(pathAMITerms) {
		family, familyKnown = ami.ResolvedFamily(c.Family, c.Terms, kv)
	}
	hasUserData := c.Spec.UserData != nil
	if c.Bootstrap != nil && !u.Is(pathBootstrap) {
		if familyKnown && family.Model().KarpenterBootstraps() {
			fs = append(fs, rules.New(ruleBootstrapFamily, pathBootstrap,
				"bootstrap renders complete Custom userData, but the class's family is %s: Karpenter generates that family's bootstrap itself and would append its own call. Set amiFamily Custom (resolution still follows the selector terms, also an alias), or remove bootstrap and let Karpenter bootstrap the node.", family).
				WithFix(rules.Fix{Field: pathAMIFamily, Value: `"Custom"`, Or: []rules.Fix{{Field: pathBootstrap, Remove: true}}}))
		}
		if hasUserData && !u.Is(pathUserData) {
			fs = append(fs, rules.New(ruleBootstrapFamily, pathUserData,
				"userData is set together with bootstrap; bootstrap renders the whole userData, so this value would be replaced. Move the commands into bootstrap.pre_bootstrap_script / post_bootstrap_script, or drop bootstrap and write the full userData yourself."))
		}
		fs = append(fs, validateBootstrap(c)...)
	}
	// A Custom class without userData is provably broken only on EKS-optimized
	// images, which bootstrap nothing by themselves: decidable here for an
	// alias, at plan (from the images) otherwise. A custom image may
	// bootstrap itself, and Karpenter accepts the class.
	if i, isAlias := ami.AliasTerm(c.Terms); isAlias && customWithoutUserData(c, family, familyKnown) {
		fs = append(fs, rules.New(ruleCustomNoUserData, pathUserData,
			"amiFamily is Custom and no userData is set, and alias %q selects EKS-optimized images, which do not bootstrap themselves. %s", c.Terms[i].Alias, customNoUserDataEffect).WithFix(renderBootstrap))
	}
	if hasUserData && familyKnown && !u.Is(pathUserData) && !u.Is(pathStorePolicy) && c.Spec.InstanceStorePolicy == "RAID0" && family.Model().KarpenterBootstraps() {
		if cmds := lint.DiskAssembly(*c.Spec.UserData); len(cmds) > 0 {
			fs = append(fs, rules.New(ruleRAID0Twice, pathUserData,
				"instanceStorePolicy is RAID0, so the %s bootstrap Karpenter renders already assembles the instance-store disks into one RAID0 array, formats and mounts it for the kubelet and containerd, and the userData assembles or formats them too (%s). The two race for the same disks: whichever runs second fails (the disks are busy or their array is gone) or wipes the other's filesystem. Keep one: drop instanceStorePolicy and keep the script, or drop the script's mdadm/mkfs.",
				family, strings.Join(cmds, "; ")))
		}
	}
	if hasUserData && familyKnown && !u.Is(pathUserData) {
		fs = append(fs, lint.UserData(family, *c.Spec.UserData, kv).Under(pathUserData)...)
		// Custom userData reaches the alias's images unchanged: whatever
		// amiFamily says, they read it as their own family does.
		if i, isAlias := ami.AliasTerm(c.Terms); isAlias && !family.Model().KarpenterBootstraps() && !u.Within(pathAMITerms) {
			if a, afs := ami.ParseAlias(c.Terms[i].Alias, kv, rules.Path{}); !afs.HasErrors() {
				if g, ok := amifamily.OfAlias(a.Family); ok {
					fs = append(fs, customOnImages(g, fmt.Sprintf("the images of alias %q, which are %s images", c.Terms[i].Alias, a.Family), *c.Spec.UserData, kv)...)
				}
			}
		}
	}
	return fs
}

func validateBootstrap(c Class) rules.Findings {
	b := *c.Bootstrap
	if c.Unknown.Within(pathBootstrap) {
		// RenderCustom validates every input; with unknown inputs it runs at plan.
		return nil
	}
	// Missing cluster facts are filled from the provider at plan: only check
	// what is given now.
	_, fs := userdata.RenderCustom(withPlaceholders(b))
	return fs.Under(pathBootstrap)
}

// withPlaceholders fills cluster facts a literal bootstrap block leaves to
// the provider's cluster block, so that ValidateConfig checks the rest.
func withPlaceholders(b userdata.Bootstrap) userdata.Bootstrap {
	if b.ClusterName == "" {
		b.ClusterName = "placeholder"
	}
	if b.APIServerEndpoint == "" {
		b.APIServerEndpoint = "https://placeholder.example.com"
	}
	if b.CertificateAuthority == "" {
		b.CertificateAuthority = "cGxhY2Vob2xkZXI="
	}
	if b.ServiceCIDR == "" {
		b.ServiceCIDR = "10.100.0.0/16"
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// customNoUserDataEffect says what happens and what to write.
const customNoUserDataEffect = "Karpenter passes Custom userData through unchanged and adds nothing, so the node boots, never joins, and its NodeClaim is deleted after the 15-minute registration timeout, over and over. Write userData that bootstraps the node (nodeadm, bootstrap.sh or Bottlerocket settings) and registers karpenter.sh/unregistered:NoExecute."

// renderBootstrap is the fix of a Custom class without userData: the
// provider's bootstrap renders it (a manifest has no such field, so its
// users get the sentence before it only).
var renderBootstrap = rules.Fix{Field: pathBootstrap.Attr("format"), Value: `"nodeadm"`}

// customWithoutUserData: a Custom class with neither user_data nor
// bootstrap, all of it known.
func customWithoutUserData(c Class, family amifamily.Family, familyKnown bool) bool {
	u := c.Unknown
	return familyKnown && !family.Model().KarpenterBootstraps() && c.Bootstrap == nil && c.Spec.UserData == nil &&
		!u.Is(pathUserData) && !u.Is(pathBootstrap)
}

// selectByDiscoveryTag is the fix that selects by the cluster's discovery
// tag in the selector term at p.
func selectByDiscoveryTag(p rules.Path) rules.Fix {
	return rules.Fix{Field: p.Attr("tags").Key(discoveryTag), Value: `"<cluster>"`}
}

// ackable is fix, which may be declined: the value as written may be meant.
func ackable(fix rules.Fix) rules.Fix {
	fix.Acknowledge = true
	return fix
}
