package readiness

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Attribute paths of the class, in the provider's names.
var (
	PathSubnetTerms        = rules.Root("subnet_selector_terms")
	PathGroupTerms         = rules.Root("security_group_selector_terms")
	PathReservationTerms   = rules.Root("capacity_reservation_selector_terms")
	PathRole               = rules.Root("role")
	PathInstanceProfile    = rules.Root("instance_profile")
	pathRequirementsOfPool = rules.Root("requirements")
)

// Evaluate predicts the class's status and findings from what AWS answered
// (o), skipping the checks whose inputs opt says are unknown or were not
// read (opt.NotRead).
func Evaluate(c Class, o Observed, opt Options) Result {
	if opt.LowFreeAddresses == 0 {
		opt.LowFreeAddresses = DefaultLowFreeAddresses
	}
	r := Result{
		Subnets:              Subnets(o.Subnets),
		SecurityGroups:       SecurityGroups(o.SecurityGroups),
		CapacityReservations: CapacityReservations(o.CapacityReservations, opt.Now),
		Conditions:           Conditions(c, o, opt),
	}
	read := func(condition string) bool { _, denied := opt.NotRead[condition]; return !denied }
	subnets, groups := read(ConditionSubnetsReady), !opt.UnknownSecurityGroups && read(ConditionSecurityGroupsReady)
	if subnets {
		r.Findings = append(r.Findings, SubnetFindings(c.SubnetTerms, o.Subnets)...)
	}
	if groups {
		r.Findings = append(r.Findings, SecurityGroupFindings(c.SecurityGroupTerms, o.SecurityGroups)...)
	}
	if subnets && groups {
		r.Findings = append(r.Findings, NetworkFindings(r.Subnets, r.SecurityGroups)...)
	}
	if subnets {
		r.Findings = append(r.Findings, FreeAddressFindings(r.Subnets, opt.LowFreeAddresses)...)
	}
	if !opt.UnknownCapacityReservations && read(ConditionCapacityReservationsReady) {
		r.Findings = append(r.Findings, CapacityReservationFindings(c.CapacityReservationTerms, o.CapacityReservations, opt.Now)...)
	}
	if !opt.UnknownIdentity && read(ConditionInstanceProfileReady) {
		r.Findings = append(r.Findings, IdentityFindings(c, o)...)
	}
	return r
}

// termQueries maps each term to the query Karpenter sends for it.
func termQueries(n int, qs []awsclient.TermQuery) []string {
	out := make([]string, n)
	for _, q := range qs {
		for _, t := range q.Terms {
			out[t] = q.String()
		}
	}
	return out
}

// SubnetFindings: the whole selector matching nothing, an id term naming no
// subnet, and a tags term that matches nothing while others match.
func SubnetFindings(terms []awsclient.SubnetTerm, sel awsclient.Selection[awsclient.Subnet]) rules.Findings {
	queries := termQueries(len(terms), sel.Queries)
	describe := func(i int) string { return describeTerm(terms[i].ID, "", terms[i].Tags) }
	fs := selectorMatchesNothing(ruleSubnetsNotFound, len(terms), len(sel.All), describe, queries,
		"subnet", "SubnetsReady", ReasonSubnetsNotFound, MessageSubnetsNotFound, "the tag keys and values, or the ids, against `aws ec2 describe-subnets`")
	for i, t := range terms {
		switch {
		case t.ID != "" && len(sel.ByTerm[i]) == 0:
			fs = append(fs, rules.New(ruleSubnetIDNotFound, PathSubnetTerms.Index(i).Attr("id"),
				"Subnet %q does not exist in this account and region (DescribeSubnets %s found no such subnet). Karpenter "+
					"sends id terms as a subnet-id filter, which skips unknown ids without an error, so the subnet would be "+
					"silently left out (aws/karpenter-provider-aws#5292). Use the id `aws ec2 describe-subnets` shows, "+
					"or select subnets by tags.", t.ID, queries[i]))
		case t.ID == "" && len(t.Tags) > 0 && len(sel.ByTerm[i]) == 0 && len(sel.All) > 0:
			fs = append(fs, termMatchesNothing(PathSubnetTerms.Index(i), "subnet", describe(i), queries[i], len(sel.All)))
		}
	}
	return fs
}

// SecurityGroupFindings: the selector matching nothing, id and name terms
// naming no group (with the group whose Name tag it is, when there is
// one), and a tags term that matches nothing while others match.
func SecurityGroupFindings(terms []awsclient.SecurityGroupTerm, sel awsclient.SecurityGroupSelection) rules.Findings {
	queries := termQueries(len(terms), sel.Queries)
	describe := func(i int) string { return describeTerm(terms[i].ID, terms[i].Name, terms[i].Tags) }
	fs := selectorMatchesNothing(ruleGroupsNotFound, len(terms), len(sel.All), describe, queries,
		"security group", "SecurityGroupsReady", ReasonSecurityGroupsNotFound, MessageSecurityGroupsNotFound,
		"the tag keys and values, ids and group names against `aws ec2 describe-security-groups`")
	for i, t := range terms {
		switch {
		case len(sel.ByTerm[i]) > 0:
		case t.ID != "":
			fs = append(fs, rules.New(ruleGroupIDNotFound, PathGroupTerms.Index(i).Attr("id"),
				"Security group %q does not exist in this account and region (DescribeSecurityGroups %s found no such "+
					"group). Karpenter sends id terms as a group-id filter, which skips unknown ids without an error, so "+
					"nodes would silently start without it (aws/karpenter-provider-aws#5292). Use the id "+
					"`aws ec2 describe-security-groups` shows, or select groups by tags.", t.ID, queries[i]))
		case t.Name != "":
			hint := " No group has it as its Name tag either."
			term := PathGroupTerms.Index(i)
			var fix *rules.Fix
			if tagged := sel.NameTagMatches[i]; len(tagged) > 0 {
				var ids []string
				for _, g := range tagged {
					ids = append(ids, fmt.Sprintf("%s (group name %q)", g.ID, g.Name))
				}
				hint = fmt.Sprintf(" It is the Name tag of %s: select it by its id, or by the Name tag.", strings.Join(ids, ", "))
				fix = &rules.Fix{Field: term.Attr("id"), Value: strconv.Quote(tagged[0].ID), And: []rules.Fix{{Field: term.Attr("name"), Remove: true}},
					Or: []rules.Fix{{Field: term.Attr("tags").Key("Name"), Value: strconv.Quote(t.Name)}}}
			}
			f := rules.New(ruleGroupNameNotFound, term.Attr("name"),
				"No security group is named %q (DescribeSecurityGroups %s). Karpenter matches `name` against the group "+
					"name (GroupName), not the Name tag the console shows, and a term that matches nothing is silently "+
					"dropped.%s", t.Name, queries[i], hint)
			f.Fix = fix
			fs = append(fs, f)
		case len(t.Tags) > 0 && len(sel.All) > 0:
			fs = append(fs, termMatchesNothing(PathGroupTerms.Index(i), "security group", describe(i), queries[i], len(sel.All)))
		}
	}
	return fs
}

func termMatchesNothing(p rules.Path, kind, term, query string, others int) rules.Finding {
	return rules.New(ruleTermMatchesNothing, p,
		"The term %s matches no %s (query %s), while the other terms match %s. Terms are ORed, so Karpenter uses "+
			"those and says nothing about this one; check its tag keys and values, or remove it.",
		term, kind, query, plural(others, kind, kind+"s"))
}

// selectorMatchesNothing is the finding of a selector whose terms all match
// nothing (the condition Karpenter sets False), listing each term's query.
func selectorMatchesNothing(r *rules.Rule, nTerms, matched int, describe func(int) string, queries []string,
	kind, condition, reason, message, check string) rules.Findings {
	if matched > 0 || nTerms == 0 {
		return nil
	}
	// The field as the manifest names it: subnetSelectorTerms.
	words := strings.Fields(kind)
	for i := 1; i < len(words); i++ {
		words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
	}
	return rules.Findings{rules.New(r, rules.Root(strings.ReplaceAll(kind, " ", "_")+"_selector_terms"),
		"No %s matches %sSelectorTerms: %s. Karpenter sets %s to False (%s, %q), so the EC2NodeClass never becomes "+
			"Ready and no node launches. Check %s in this account and region.",
		kind, strings.Join(words, ""), termsReport(nTerms, describe, queries), condition, reason, message, check)}
}

// termsReport lists each term with the query Karpenter sends for it, when
// none matched anything.
func termsReport(n int, describe func(int) string, queries []string) string {
	var parts []string
	for i := range n {
		q := queries[i]
		if q == "" {
			q = "no query (an empty term)"
		}
		parts = append(parts, fmt.Sprintf("term [%d] %s sent %s and matched nothing", i, describe(i), q))
	}
	return strings.Join(parts, "; ")
}

// NetworkFindings: subnets and security groups in different VPCs. Every
// selected group is attached to every node, so each subnet needs every group
// in its own VPC.
func NetworkFindings(subnets []Subnet, groups []SecurityGroup) rules.Findings {
	if len(subnets) == 0 || len(groups) == 0 {
		return nil
	}
	subnetsByVPC := map[string][]string{}
	for _, s := range subnets {
		subnetsByVPC[s.VPCID] = append(subnetsByVPC[s.VPCID], s.ID)
	}
	groupsByVPC := map[string][]string{}
	for _, g := range groups {
		groupsByVPC[g.VPCID] = append(groupsByVPC[g.VPCID], g.ID)
	}
	if len(subnetsByVPC) == 1 && len(groupsByVPC) == 1 && maps.Equal(vpcSet(subnetsByVPC), vpcSet(groupsByVPC)) {
		return nil
	}
	var badSubnet, badGroup string
	for _, s := range subnets {
		for _, g := range groups {
			if badSubnet == "" && g.VPCID != s.VPCID {
				badSubnet, badGroup = s.ID, g.ID
			}
		}
	}
	return rules.Findings{rules.New(ruleDifferentVPCs, PathGroupTerms,
		"The subnets are in %s; the security groups in %s. Karpenter attaches every security group to every node, and "+
			"EC2 refuses a launch whose security groups are not all in the subnet's VPC: \"Security group %s and subnet "+
			"%s belong to different networks\". The class would be Ready and launches would keep failing. Select "+
			"subnets and security groups of one VPC (e.g. both by the cluster's karpenter.sh/discovery tag).",
		byVPC(subnetsByVPC), byVPC(groupsByVPC), badGroup, badSubnet)}
}

func vpcSet(m map[string][]string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func byVPC(m map[string][]string) string {
	var parts []string
	for _, vpc := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s (%s)", vpc, strings.Join(m[vpc], ", ")))
	}
	return strings.Join(parts, " and ")
}

// FreeAddressFindings warns about zones whose best subnet (the one
// Karpenter launches into) has fewer than threshold free addresses.
func FreeAddressFindings(subnets []Subnet, threshold int32) rules.Findings {
	best := map[string]Subnet{}
	for _, s := range subnets {
		if b, ok := best[s.Zone]; !ok || s.AvailableIPAddresses > b.AvailableIPAddresses ||
			s.AvailableIPAddresses == b.AvailableIPAddresses && s.ID < b.ID {
			best[s.Zone] = s
		}
	}
	var fs rules.Findings
	for _, zone := range slices.Sorted(maps.Keys(best)) {
		if s := best[zone]; s.AvailableIPAddresses < threshold {
			fs = append(fs, rules.New(ruleFewAddresses, PathSubnetTerms,
				"Subnet %s has %s, and it is the class's best subnet in %s (Karpenter launches each zone's nodes into "+
					"the selected subnet with the most free addresses). A node takes one address plus, with the VPC "+
					"CNI's default warm pool, a spare ENI's worth, so launches in %s will fail with "+
					"InsufficientFreeAddressesInSubnet after a node or two. Select a larger subnet in that zone, or free "+
					"addresses in this one.", s.ID, plural(int(s.AvailableIPAddresses), "free address", "free addresses"), zone, zone))
		}
	}
	return fs
}

// CapacityReservationFindings warns about terms that match no active,
// unexpired reservation (Karpenter's queries filter state=active and read
// an unknown id as none).
func CapacityReservationFindings(terms []awsclient.CapacityReservationTerm, sel awsclient.Selection[awsclient.CapacityReservation], now time.Time) rules.Findings {
	queries := termQueries(len(terms), sel.Queries)
	var fs rules.Findings
	for i, t := range terms {
		if queries[i] == "" { // ownerID alone: Karpenter sends nothing for the term
			continue
		}
		live := 0
		ended := []string{}
		if i < len(sel.ByTerm) {
			for _, r := range sel.ByTerm[i] {
				if r.EndDate.IsZero() || r.EndDate.After(now) {
					live++
				} else {
					ended = append(ended, r.ID)
				}
			}
		}
		if live > 0 {
			continue
		}
		why := "none is active in this account and region"
		if len(ended) > 0 {
			why = "the ones it matches have ended (" + strings.Join(ended, ", ") + ")"
		}
		p := PathReservationTerms.Index(i)
		if t.ID != "" {
			p = p.Attr("id")
		}
		fs = append(fs, rules.New(ruleReservationNotFound, p,
			"The term %s matches no capacity reservation Karpenter would use (query %s): %s. Karpenter asks for "+
				"active reservations only and reads an unknown id as none, so CapacityReservationsReady stays True and the "+
				"reserved capacity is never used. Check the id or tags with `aws ec2 describe-capacity-reservations`.",
			describeTerm(t.ID, "", t.Tags), queries[i], why))
	}
	return fs
}

// IdentityFindings: the role or instance profile does not exist, or the
// instance profile holds no role.
func IdentityFindings(c Class, o Observed) rules.Findings {
	switch {
	case c.Role != "" && o.Role != nil && !o.Role.Found:
		return rules.Findings{rules.New(ruleRoleNotFound, PathRole,
			"IAM has no role %q in this account (iam:GetRole answered NoSuchEntity). Karpenter creates an instance "+
				"profile for `role` and adds the role to it; that fails on every reconcile, InstanceProfileReady stays "+
				"Unknown (%s) and the EC2NodeClass never becomes Ready. Use the name of the role the nodes run as (the "+
				"Karpenter node role the cluster's setup created).", RoleName(c.Role), ReasonAwaitingReconciliation)}
	case c.InstanceProfile != "" && o.InstanceProfile != nil && !o.InstanceProfile.Found:
		return rules.Findings{rules.New(ruleProfileNotFound, PathInstanceProfile,
			"IAM has no instance profile %q in this account (iam:GetInstanceProfile answered NoSuchEntity). Karpenter "+
				"does not check `instanceProfile` (InstanceProfileReady is True), so every launch fails: EC2 answers "+
				"\"Value (%s) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name\". Use an "+
				"existing instance profile, or `role` to let Karpenter make one.", c.InstanceProfile, c.InstanceProfile)}
	case c.InstanceProfile != "" && o.InstanceProfile != nil && len(o.InstanceProfile.Roles) == 0:
		return rules.Findings{rules.New(ruleProfileWithoutRole, PathInstanceProfile,
			"Instance profile %q holds no role: nodes would start without AWS credentials, could not authenticate to "+
				"the cluster and would never register. Add the node role to it (aws iam add-role-to-instance-profile), or "+
				"use `role` instead.", c.InstanceProfile)}
	}
	return nil
}

// Pool is what the NodePool cross-checks read from a pool. Nil Zones (or
// ZoneIDs) means the pool does not constrain zones; Families are the
// instance families its requirements admit.
type Pool struct {
	Zones, ZoneIDs []string
	Families       []string
	// ZonesPath and FamiliesPath are where findings point; both default to
	// the pool's requirements.
	ZonesPath, FamiliesPath rules.Path
}

// CheckPool cross-checks a pool with its class's subnets and the region's
// offerings (zone -> instance types): zones the pool admits without a
// subnet of the class, and families offered in none of the usable zones.
func CheckPool(p Pool, classSubnets []Subnet, offerings map[string][]string) rules.Findings {
	if p.ZonesPath.IsEmpty() {
		p.ZonesPath = pathRequirementsOfPool
	}
	if p.FamiliesPath.IsEmpty() {
		p.FamiliesPath = pathRequirementsOfPool
	}
	classZones := Zones(classSubnets)
	if len(classZones) == 0 {
		return nil // the class's own finding says it has no subnet
	}
	usable := UsableZones(p, classSubnets)
	if len(usable) == 0 {
		return rules.Findings{rules.New(rulePoolZones, p.ZonesPath,
			"The pool admits zones %s, its class has subnets in %s only. Karpenter launches only into the class's "+
				"zones, so no offering of this pool remains and every launch fails. Admit one of %s, or give the class "+
				"a subnet in the pool's zones.", poolZones(p), quoteAll(classZones), quoteAll(classZones))}
	}
	if len(p.Families) == 0 || offerings == nil {
		return nil
	}
	missing := FamiliesNotOffered(p.Families, usable, offerings)
	if len(missing) == 0 {
		return nil
	}
	what := "Instance families " + quoteAll(missing) + " are"
	if len(missing) == 1 {
		what = "Instance family " + quoteAll(missing) + " is"
	}
	f := rules.New(rulePoolFamilies, p.FamiliesPath,
		"%s offered in none of the zones this pool can launch in (%s), according to "+
			"DescribeInstanceTypeOfferings; Karpenter never launches it there.", what, quoteAll(usable))
	if len(missing) == len(p.Families) {
		f.Detail += " No admitted family remains, so every launch of this pool fails. Admit families offered there, " +
			"or give the class subnets in zones that offer them."
		return rules.Findings{f}
	}
	f.Detail += " The pool still launches the other families; remove these, or give the class subnets in zones that offer them."
	return rules.Findings{f.AsWarning()}
}

// UsableZones are the zones of the class's subnets that the pool admits
// (by name and by zone id).
func UsableZones(p Pool, classSubnets []Subnet) []string {
	var out []string
	for _, s := range classSubnets {
		if (p.Zones == nil || slices.Contains(p.Zones, s.Zone)) && (p.ZoneIDs == nil || slices.Contains(p.ZoneIDs, s.ZoneID)) &&
			!slices.Contains(out, s.Zone) {
			out = append(out, s.Zone)
		}
	}
	slices.Sort(out)
	return out
}

func poolZones(p Pool) string {
	var parts []string
	if len(p.Zones) > 0 {
		parts = append(parts, quoteAll(p.Zones))
	}
	if len(p.ZoneIDs) > 0 {
		parts = append(parts, "zone ids "+quoteAll(p.ZoneIDs))
	}
	if len(parts) == 0 { // NotIn requirements that exclude every zone of the class
		return "none of them"
	}
	return strings.Join(parts, " and ")
}

// The rules the checks of this file emit.
var (
	ruleSubnetsNotFound = rules.Register(rules.Rule{
		ID: "subnet-selector-matches-nothing", Severity: rules.Error, Category: Category,
		Title:     "subnet_selector_terms match no subnet",
		Behaviour: "Karpenter sets SubnetsReady to False (reason SubnetsNotFound, \"SubnetSelector did not match any Subnets\"): the EC2NodeClass never becomes Ready and no node launches. The diagnostic lists each term with the DescribeSubnets filters Karpenter sends for it.",
		Source:    "A:pkg/controllers/nodeclass/subnet.go Reconcile, A:pkg/providers/subnet/subnet.go getFilterSets; kubernetes-sigs/karpenter#2992",
		Bad:       class(subnetTerm(`tags = { "karpenter.sh/discovery" = "dem0" }`) + demoSG),
		Good:      class(demoNet),
	})
	ruleGroupsNotFound = rules.Register(rules.Rule{
		ID: "security-group-selector-matches-nothing", Severity: rules.Error, Category: Category,
		Title:     "security_group_selector_terms match no security group",
		Behaviour: "Karpenter sets SecurityGroupsReady to False (reason SecurityGroupsNotFound, \"SecurityGroupSelector did not match any SecurityGroups\"): the EC2NodeClass never becomes Ready and no node launches.",
		Source:    "A:pkg/controllers/nodeclass/securitygroup.go Reconcile, A:pkg/providers/securitygroup/securitygroup.go getFilterSets; kubernetes-sigs/karpenter#2932",
		Bad: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) +
			groupTerm(`tags = { "karpenter.sh/discovery" = "prod" }`)),
		Good: class(demoNet),
	})
	ruleSubnetIDNotFound = rules.Register(rules.Rule{
		ID: "subnet-id-not-found", Severity: rules.Error, Category: Category,
		Title:     "a subnet id term names a subnet that does not exist",
		Behaviour: "Karpenter sends every id term in one DescribeSubnets subnet-id filter, and a filter ignores ids that do not exist: the subnet is silently left out (aws/karpenter-provider-aws#5292), the class launches in the other subnets, or reports SubnetsNotFound when none remain.",
		Source:    "A:pkg/providers/subnet/subnet.go getFilterSets; aws/karpenter-provider-aws#5292",
		Bad: class(demoSG + subnetTerm(`id = "subnet-0c55ce9f379c43337"`) +
			subnetTerm(`id = "subnet-0f470d0012baca035"`)),
		Good: class(demoSG + subnetTerm(`id = "subnet-0c55ce9f379c43337"`) +
			subnetTerm(`id = "subnet-0f470d0012baca034"`)),
	})
	ruleGroupIDNotFound = rules.Register(rules.Rule{
		ID: "security-group-id-not-found", Severity: rules.Error, Category: Category,
		Title:     "a security group id term names a group that does not exist",
		Behaviour: "Karpenter sends every id term in one DescribeSecurityGroups group-id filter, which ignores ids that do not exist: nodes start without that group, silently, or the class reports SecurityGroupsNotFound when no group remains.",
		Source:    "A:pkg/providers/securitygroup/securitygroup.go getFilterSets; aws/karpenter-provider-aws#5292",
		Bad: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`id = "sg-00d035828a5993e59"`)),
		Good: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`id = "sg-00d035828a5993e58"`)),
	})
	ruleGroupNameNotFound = rules.Register(rules.Rule{
		ID: "security-group-name-not-found", Severity: rules.Error, Category: Category,
		Title:     "a security group name term names no group",
		Behaviour: "Karpenter matches `name` against the group name (EC2's GroupName, filter group-name), not the Name tag the console shows: a group created by Terraform without `name` is called \"terraform-2025…\" and its Name tag is ignored. The term silently matches nothing; when a group carries the name as its Name tag, the diagnostic names it.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go SecurityGroupSelectorTerm.Name (\"This value is the name field, which is different from the name tag\"), A:pkg/providers/securitygroup/securitygroup.go getFilterSets",
		Bad: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`name = "demo-extra"`)),
		Good: class(subnetTerm(`tags = { "karpenter.sh/discovery" = "demo" }`) + demoSG +
			groupTerm(`tags = { Name = "demo-extra" }`)),
	})
	ruleRoleNotFound = rules.Register(rules.Rule{
		ID: "role-not-found", Severity: rules.Error, Category: Category,
		Title:     "the node role does not exist",
		Behaviour: "For `role` Karpenter creates an instance profile and adds the role to it; IAM answers NoSuchEntity, every reconcile fails (\"creating instance profile, ensuring role attached, adding role to instance profile\"), InstanceProfileReady stays Unknown and the class never becomes Ready.",
		Source:    "A:pkg/controllers/nodeclass/instanceprofile.go Reconcile, A:pkg/providers/instanceprofile/instanceprofile.go Create/ensureRole",
		Bad:       classHead + "  role = \"KarpenterNodeRole-prod\"\n" + amiBlock + demoNet + "}",
		Good:      class(demoNet),
	})
	ruleProfileNotFound = rules.Register(rules.Rule{
		ID: "instance-profile-not-found", Severity: rules.Error, Category: Category,
		Title:     "the instance profile does not exist",
		Behaviour: "Karpenter takes `instanceProfile` as it is (InstanceProfileReady is True without asking IAM), so the mistake shows at launch: EC2 rejects the launch template's IamInstanceProfile (\"Value (…) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name\") and no node starts.",
		Source:    "A:pkg/controllers/nodeclass/instanceprofile.go Reconcile (spec.instanceProfile branch), A:pkg/providers/launchtemplate",
		Bad:       profileClass("KarpenterNodeInstanceProfile-prod"),
		Good:      profileClass("KarpenterNodeInstanceProfile-demo"),
	})
	ruleProfileWithoutRole = rules.Register(rules.Rule{
		ID: "instance-profile-without-role", Severity: rules.Warning, Category: Category,
		Title:     "the instance profile holds no role",
		Behaviour: "Nodes launched with an instance profile without a role get no AWS credentials: the kubelet cannot authenticate to the cluster (EKS maps the node role, through an access entry or aws-auth), so the nodes never register and Karpenter replaces them after its registration timeout.",
		Source:    "A:pkg/controllers/nodeclass/instanceprofile.go (spec.instanceProfile is not inspected); EKS node IAM role documentation",
		Bad:       profileClass("KarpenterNodeInstanceProfile-empty"),
		Good:      profileClass("KarpenterNodeInstanceProfile-demo"),
	})
	ruleFewAddresses = rules.Register(rules.Rule{
		ID: "subnet-free-addresses-low", Severity: rules.Warning, Category: Category,
		Title:     "a zone's subnet is almost out of addresses",
		Behaviour: "In each zone Karpenter launches into the selected subnet with the most free addresses. A node takes one address and, with the VPC CNI's default warm pool, a spare ENI's worth more; when the best subnet of a zone has fewer than 32, launches there fail with InsufficientFreeAddressesInSubnet after a node or two.",
		Source:    "A:pkg/providers/subnet/subnet.go ZonalSubnetsForLaunch",
		Bad:       class(demoSG + subnetTerm(`tags = { tier = "isolated" }`)),
		Good:      class(demoNet),
	})
	ruleReservationNotFound = rules.Register(rules.Rule{
		ID: "capacity-reservation-not-found", Severity: rules.Warning, Category: Category,
		Title:     "a capacity reservation term matches no active reservation",
		Behaviour: "Karpenter asks for active reservations only, reads an id that does not exist (InvalidCapacityReservationId.NotFound) as none, and drops reservations past their end date; CapacityReservationsReady stays True and pools with capacity type reserved launch nothing from the reservation.",
		Source:    "A:pkg/providers/capacityreservation/provider.go List, types.go DescribeCapacityReservationsInput",
		Bad:       class(demoNet + "  capacity_reservation_selector_terms {\n    id = \"cr-061cab9905fcac648\"\n  }\n"),
		Good:      class(demoNet + "  capacity_reservation_selector_terms {\n    id = \"cr-0440acf6090c50d15\"\n  }\n"),
	})
	rulePoolZones = rules.Register(rules.Rule{
		ID: "nodepool-zones-without-subnet", Severity: rules.Error, Category: Category,
		Title:     "the pool's zones have no subnet of its class",
		Behaviour: "Karpenter launches only into the zones of the class's subnets; a pool whose zone requirement admits none of them has no offering left, and every NodeClaim of it fails to launch.",
		Source:    "A:pkg/providers/instancetype/offering (zones from the class's subnets), A:pkg/providers/subnet/subnet.go ZonalSubnetsForLaunch",
		Bad:       class(demoNet) + pool(requirement("topology.kubernetes.io/zone", `"us-east-1d"`)),
		Good:      class(demoNet) + pool(requirement("topology.kubernetes.io/zone", `"us-east-1a", "us-east-1b"`)),
	})
)
