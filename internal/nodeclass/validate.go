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

// The rules the checks of this file emit.
var (
	ruleName = rules.Register(rules.Rule{
		ID: "nodeclass-name-invalid", Severity: rules.Error, Category: category,
		Title:     "the EC2NodeClass name is not a valid object name",
		Behaviour: "Object names must be DNS-1123 subdomains (lowercase alphanumerics, '-' and '.', at most 253 characters); the API server rejects anything else.",
		Source:    "Kubernetes object name validation (metadata.name)",
		Bad:       "resource \"karpenter_ec2nodeclass\" \"x\" {\n  name = \"GPU_nodes\"\n  # ...\n}",
		Good:      "resource \"karpenter_ec2nodeclass\" \"x\" {\n  name = \"gpu-nodes\"\n  # ...\n}",
	})
	ruleIdentity = rules.Register(rules.Rule{
		ID: "nodeclass-role-or-instance-profile", Severity: rules.Error, Category: category,
		Title:     "set exactly one of role and instance_profile",
		Behaviour: "CRD rules: \"must specify exactly one of ['role', 'instanceProfile']\", \"role cannot be empty\", \"instanceProfile cannot be empty\".",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on spec, role, instanceProfile)",
		Bad:       "role             = \"KarpenterNodeRole-prod\"\ninstance_profile = \"KarpenterNodeInstanceProfile-prod\"",
		Good:      "role = \"KarpenterNodeRole-prod\"",
	})
	ruleSelectorCount = rules.Register(rules.Rule{
		ID: "selector-terms-count", Severity: rules.Error, Category: category,
		Title:     "subnet and security group selectors need 1 to 30 terms",
		Behaviour: "CRD rules: \"subnetSelectorTerms cannot be empty\", \"securityGroupSelectorTerms cannot be empty\", and maxItems 30 on every selector list. Without subnets or security groups Karpenter cannot launch.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml",
		Bad:       class(`security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`),
		Good:      class(`subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`, `security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`),
	})
	ruleSelectorEmpty = rules.Register(rules.Rule{
		ID: "selector-term-empty", Severity: rules.Error, Category: category,
		Title:     "a selector term selects nothing",
		Behaviour: "CRD rules: \"expected at least one, got none, ['tags', 'id']\" (subnets), \"... ['tags', 'id', 'name']\" (security groups), \"... ['tags', 'id', 'instanceMatchCriteria']\" (capacity reservations).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on the selector terms)",
		Bad:       rules.Block("security_group_selector_terms"),
		Good:      `security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`,
	})
	ruleSelectorExclusive = rules.Register(rules.Rule{
		ID: "selector-term-field-exclusive", Severity: rules.Error, Category: category,
		Title:     "`id` (and a security group `name`) cannot be combined with other fields of the term",
		Behaviour: "CRD rules: \"'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term\" (and for security groups, `name` too). The CEL rule uses `all`, so the API server only rejects it when every term mixes them; one mixed term among others passes and Karpenter silently ignores the tags. This provider rejects any mixed term.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (the CEL rules on subnet, security group and capacity reservation selector terms use `!self.all(...)`)",
		Bad:       rules.Block("subnet_selector_terms", `id = "subnet-0123456789abcdef0"`, `tags = { tier = "private" }`),
		Good:      rules.Body(`subnet_selector_terms { id = "subnet-0123456789abcdef0" }`, `subnet_selector_terms { tags = { tier = "private" } }`),
	})
	ruleSelectorID = rules.Register(rules.Rule{
		ID: "selector-term-id-invalid", Severity: rules.Error, Category: category,
		Title:     "a selector id does not look like the resource's id",
		Behaviour: "Subnet and security group id patterns (`subnet-[0-9a-z]+`, `sg-[0-9a-z]+`) are unanchored, so `xsubnet-1 ` passes the API server and then matches nothing; capacity reservation ids (`^cr-[0-9a-z]+$`) and owner ids (`^[0-9]{12}$`) are anchored.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (id patterns)",
		Bad:       `security_group_selector_terms { id = "sg-0123 " }`,
		Good:      `security_group_selector_terms { id = "sg-0123456789abcdef0" }`,
	})
	ruleSelectorTags = rules.Register(rules.Rule{
		ID: "selector-tags-invalid", Severity: rules.Error, Category: category,
		Title:     "selector tags need non-empty keys and values, at most 20",
		Behaviour: "CRD rule: \"empty tag keys or values aren't supported\" and `maxProperties: 20` on subnet, security group and capacity reservation selector tags. Use \"*\" to match any value.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (selector tags)",
		Bad:       `subnet_selector_terms { tags = { "karpenter.sh/discovery" = "" } }`,
		Good:      `subnet_selector_terms { tags = { "karpenter.sh/discovery" = "*" } }`,
	})
	ruleReservations = rules.Register(rules.Rule{
		ID: "capacity-reservation-terms-invalid", Severity: rules.Error, Category: category,
		Title:     "capacity reservation selector terms need Karpenter 1.3 and a valid criteria",
		Behaviour: "`capacityReservationSelectorTerms` exists from Karpenter 1.3.0 (older CRDs prune it, so reservations are silently not used); `instanceMatchCriteria` is `open` or `targeted`.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go CapacityReservationSelectorTerm (v1.3.0)",
		Bad:       `capacity_reservation_selector_terms { instance_match_criteria = "any" }`,
		Good:      `capacity_reservation_selector_terms { instance_match_criteria = "open" }`,
	})
	ruleTags = rules.Register(rules.Rule{
		ID: "nodeclass-tag-restricted", Severity: rules.Error, Category: category,
		Title:     "the tag key is empty or reserved for Karpenter and EKS",
		Behaviour: "CRD rules: \"empty tag keys aren't supported\" and \"tag contains a restricted tag matching ...\" for eks:eks-cluster-name, kubernetes.io/cluster/*, karpenter.sh/nodepool, karpenter.sh/nodeclaim and karpenter.k8s.aws/ec2nodeclass: Karpenter sets these itself to find and garbage-collect its instances.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on tags)",
		Bad:       "tags = { \"kubernetes.io/cluster/prod\" = \"owned\" }",
		Good:      "tags = { team = \"platform\" }",
	})
	ruleStorePolicy = rules.Register(rules.Rule{
		ID: "instance-store-policy-invalid", Severity: rules.Error, Category: category,
		Title:     "instance_store_policy can only be RAID0",
		Behaviour: "The CRD enum of instanceStorePolicy is [RAID0].",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (instanceStorePolicy)",
		Bad:       "instance_store_policy = \"raid0\"",
		Good:      "instance_store_policy = \"RAID0\"",
	})
	ruleRAID0Twice = rules.Register(rules.Rule{
		ID: "instance-store-raid0-assembled-twice", Severity: rules.Warning, Category: category,
		Title:     "instanceStorePolicy RAID0 and userData that also assembles or formats the instance-store disks",
		Behaviour: "With `instanceStorePolicy: RAID0` Karpenter has the node's bootstrap assemble the instance-store NVMe disks into one RAID0 array, format and mount it for the kubelet and containerd (AL2: `bootstrap.sh --local-disks raid0`; AL2023: NodeConfig `localStorage.strategy: RAID0`; Bottlerocket: its ephemeral-storage settings). A userData script that runs its own `mdadm --create` or `mkfs` on the same disks races with it: the second fails on busy disks or destroys the first's array. A warning: which one runs second depends on the image's boot order. With amiFamily Custom Karpenter renders nothing, so there the script is how RAID0 happens and nothing is reported.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap (eksbootstrap.go --local-disks raid0, nodeadm.go localStorage RAID0, bottlerocket.go); awslabs/amazon-eks-ami setup-local-disks",
		Bad:       rules.Body(`ami_family = "AL2023"`, `instance_store_policy = "RAID0"`, `user_data = "#!/bin/bash\nmdadm --create /dev/md0 --level=0 --raid-devices=2 /dev/nvme1n1 /dev/nvme2n1\nmkfs.xfs /dev/md0\n"`),
		Good:      rules.Body(`ami_family = "AL2023"`, `instance_store_policy = "RAID0"`),
	})
)

// The rules the checks of this file emit.
var (
	ruleBootstrapFamily = rules.Register(rules.Rule{
		ID: "bootstrap-requires-custom", Severity: rules.Error, Category: category,
		Title:     "`bootstrap` renders Custom userData and needs ami_family = \"Custom\" without user_data",
		Behaviour: "For every other family Karpenter generates the bootstrap itself and appends it to spec.userData: a second bootstrap call would run twice or fail (bootstrap.sh exits 1 on AL2023). A literal user_data next to `bootstrap` would be replaced.",
		Source:    "this provider's bootstrap block; A:pkg/providers/amifamily/bootstrap/custom.go (Custom passes userData through), eksbootstrap.go and nodeadm.go (the bootstrap Karpenter appends for the other families)",
		Bad:       rules.Body(`ami_family = "AL2023"`, `bootstrap { format = "nodeadm" }`),
		Good:      rules.Body(`ami_family = "Custom"`, `bootstrap { format = "nodeadm" }`),
	})
)
