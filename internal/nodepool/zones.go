package nodepool

import (
	"maps"
	"slices"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// ZonePool is what readiness.CheckPool reads of a pool against its class's
// subnets: the zones (and zone ids) its requirements and template labels
// admit among the subnets', the instance families it names, and where
// findings point. ok is false while a requirement or a label is unknown:
// the check waits for them. The resource and karpenter-lint both ask it.
func ZonePool(p Pool, subnets []readiness.Subnet, res Result) (pool readiness.Pool, ok bool) {
	if p.Unknown.Is(rules.Root("labels")) {
		return pool, false
	}
	reqs, complete := requirements.FromSpecs(Specs(p))
	if !complete {
		return pool, false
	}
	var labels map[string]string
	if m := p.Manifest.Spec.Template.Metadata; m != nil {
		labels = m.Labels
	}
	// Karpenter adds the template labels to the requirements.
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if key := requirements.Normalize(k); key == requirements.LabelZone || key == requirements.LabelZoneID {
			reqs.Add(requirements.New(key, requirements.In, labels[k]))
			pool.ZonesPath = rules.Root("labels").Key(k)
		}
	}
	var names, ids []string
	for _, s := range subnets {
		names, ids = append(names, s.Zone), append(ids, s.ZoneID)
	}
	pool.Zones = admitted(reqs, requirements.LabelZone, names)
	pool.ZoneIDs = admitted(reqs, requirements.LabelZoneID, ids)
	// The finding points at the values of the first zone requirement.
	for i, r := range p.Manifest.Spec.Template.Spec.Requirements {
		if key := requirements.Normalize(r.Key); key == requirements.LabelZone || key == requirements.LabelZoneID {
			pool.ZonesPath = rules.Root("requirements").Index(i).Attr("values")
			break
		}
	}
	pool.Families = namedFamilies(reqs, res)
	return pool, true
}

// admitted is what the pool admits of key: the values of an In
// requirement, or those of candidates the requirement allows (NotIn,
// Exists); nil when the pool does not constrain key, or requires the
// label to be absent (a rule of its own).
func admitted(reqs requirements.Requirements, key string, candidates []string) []string {
	if !reqs.Has(key) {
		return nil
	}
	r := reqs.Get(key)
	switch r.Operator() {
	case requirements.In:
		return append([]string{}, r.Values()...)
	case requirements.DoesNotExist:
		return nil
	}
	out := []string{}
	for _, c := range candidates {
		if r.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// namedFamilies are the instance families the pool names with an In
// requirement on instance types or families, among those its requirements
// admit. A pool that does not name families is not checked: it launches
// whatever is offered in its zones.
func namedFamilies(reqs requirements.Requirements, res Result) []string {
	var named []string
	family := reqs.Get(requirements.LabelInstanceFamily)
	switch it := reqs.Get(requirements.LabelInstanceType); {
	case reqs.Has(requirements.LabelInstanceType) && it.Operator() == requirements.In:
		for _, t := range it.Values() {
			if f := readiness.Family(t); family.Has(f) && !slices.Contains(named, f) {
				named = append(named, f)
			}
		}
	case reqs.Has(requirements.LabelInstanceFamily) && family.Operator() == requirements.In:
		named = family.Values()
	}
	if !res.FamiliesKnown {
		return named
	}
	var out []string
	for _, f := range named {
		if slices.Contains(res.InstanceFamilies, f) {
			out = append(out, f)
		}
	}
	return out
}
