package requirements

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// TestZoneValues: a zone requirement's value that is a region, or the
// other kind of zone identifier, matches no offering: an error when it is
// the only value, a warning beside valid zones; zone names, zone IDs, Local
// Zones and regions AWS may add are not reported.
func TestZoneValues(t *testing.T) {
	for _, tc := range []struct {
		key    string
		values []string
		want   rules.Severity // -1: no finding
	}{
		{LabelZone, []string{"us-east-1"}, rules.Error},
		{LabelZone, []string{"use1-az1", "use1-az2"}, rules.Error},
		{LabelZone, []string{"us-east-1a", "us-east-1"}, rules.Warning},
		{LabelZone, []string{"us-east-1a", "us-west-2-lax-1a"}, -1},
		{LabelZoneID, []string{"us-east-1a"}, rules.Error},
		{LabelZoneID, []string{"eu-west-1"}, rules.Error},
		{LabelZoneID, []string{"use1-az1", "usw2-lax1-az1"}, -1},
		{"failure-domain.beta.kubernetes.io/zone", []string{"us-east-1"}, rules.Error},
		{"example.com/zone", []string{"us-east-1"}, -1},
	} {
		fs := ValidateOne(Spec{Key: tc.key, Operator: "In", Values: tc.values}, versions.DefaultKarpenter, Root.Index(0)).ByRule(ruleZoneValue.ID)
		switch {
		case tc.want == -1 && len(fs) > 0:
			t.Errorf("%s In %v: %v, want none", tc.key, tc.values, fs)
		case tc.want != -1 && (len(fs) != 1 || fs[0].Severity != tc.want || fs[0].Path.String() != "requirements[0].values"):
			t.Errorf("%s In %v: %v, want one %v at requirements[0].values", tc.key, tc.values, fs, tc.want)
		}
	}
	// NotIn excludes what it names; a region there excludes nothing, but
	// admits everything else as meant.
	if fs := ValidateOne(Spec{Key: LabelZone, Operator: "NotIn", Values: []string{"us-east-1"}}, versions.DefaultKarpenter, Root.Index(0)).ByRule(ruleZoneValue.ID); len(fs) > 0 {
		t.Errorf("NotIn: %v", fs)
	}
}
