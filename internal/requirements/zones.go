package requirements

import (
	"regexp"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// zoneIDShape is an AWS zone ID: use1-az1, or usw2-lax1-az1 for a Local
// Zone.
var zoneIDShape = regexp.MustCompile(`^[a-z]+[0-9]+(-[a-z]+[0-9]+)?-az[0-9]+$`)

// notAZone says why v, an In value of key, names no zone the offerings
// carry: Karpenter's AWS offerings have the zone's name under
// topology.kubernetes.io/zone and its ID under topology.k8s.aws/zone-id
// ("" when v may be one).
func notAZone(key, v string) string {
	if known, _, _ := awsclient.KnownRegion(v); known {
		return "a region, not a zone"
	}
	switch key {
	case LabelZone:
		if zoneIDShape.MatchString(v) {
			return "a zone ID, which Karpenter labels topology.k8s.aws/zone-id"
		}
	case LabelZoneID:
		if len(v) > 1 && v[len(v)-1] >= 'a' && v[len(v)-1] <= 'z' {
			if known, _, _ := awsclient.KnownRegion(strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz")); known {
				return "a zone name, which Karpenter labels topology.kubernetes.io/zone"
			}
		}
	}
	return ""
}

// checkZoneValues reports the In values of a zone key that name a region,
// or the other kind of zone identifier: no offering has them, so the value
// admits nothing (an error when no value is left).
func checkZoneValues(s Spec, key string, p rules.Path) rules.Findings {
	if key != LabelZone && key != LabelZoneID {
		return nil
	}
	var bad, why []string
	for _, v := range s.Values {
		if w := notAZone(key, v); w != "" {
			bad, why = append(bad, v), append(why, v+" is "+w)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	example := "us-east-1a"
	if key == LabelZoneID {
		example = "use1-az1"
	}
	f := rules.New(ruleZoneValue, p.Attr("values"),
		"%s In %s: %s. Karpenter's offerings carry the zone's name under %s and its ID under %s, so no offering matches it",
		key, quoteList(s.Values), strings.Join(why, "; "), LabelZone, LabelZoneID)
	if len(bad) == len(s.Values) {
		f.Detail += ": the requirement admits no instance type offering, the scheduler finds no instance type for the pool's pods and they stay pending. List the zones meant, e.g. " + example + "."
		return rules.Findings{f}
	}
	f.Detail += " and the value is dropped: the pool launches only in the other zones listed. List the zones meant, e.g. " + example + "."
	return rules.Findings{f.AsWarning()}
}

var ruleZoneValue = rules.Register(rules.Rule{
	ID: "requirement-zone-value-not-a-zone", Severity: rules.Error, Category: Category,
	Title: "a zone requirement lists a region, or a zone ID under the zone-name label (or the reverse)",
	Behaviour: "Karpenter's AWS offerings carry each zone's name (us-east-1a) under topology.kubernetes.io/zone and its ID (use1-az1) under topology.k8s.aws/zone-id. " +
		"A value that is a region (us-east-1) or the other kind of identifier matches no offering: when it is the only value, the requirement admits no instance type, the scheduler finds none for the pool's pods and they stay pending (an error); " +
		"beside valid zones it is dropped (a warning). With AWS, the zones are also checked against the class's subnets (nodepool-zones-without-subnet).",
	Source: "aws/karpenter-provider-aws pkg/providers/instancetype/offering/base_resolver.go (offering requirements topology.kubernetes.io/zone and topology.k8s.aws/zone-id); kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaim.go CanAdd",
	Bad:    pool(req(LabelZone, "In", `values = ["us-east-1"]`)),
	Good:   pool(req(LabelZone, "In", `values = ["us-east-1a", "us-east-1b"]`)),
})
