package provider

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// tombstoneAdvice says, for each tombstone attribute of karpenter_nodepool
// (an attribute of an older Karpenter API the schema takes only to fail on
// it), where v1 has the field in this provider's terms and what to write,
// given the value as written in HCL. The attributes exist only here, so
// their advice is the provider's; the manifests' is migration's YAML.
var tombstoneAdvice = map[string]func(v string) string{
	migration.AttrDisruptionExpireAfter.String(): func(v string) string {
		return fmt.Sprintf("v1 has it in spec.template.spec, which is this resource's top-level expire_after. Write expire_after = %s next to name and remove it from the disruption block.", v)
	},
	migration.AttrKubelet.String(): func(string) string {
		return "v1 has them on the EC2NodeClass: move this block into the kubelet block of the karpenter_ec2nodeclass this pool uses (pools that need different kubelet settings need their own EC2NodeClass), and remove it here."
	},
	migration.AttrTTLUntilExpired.String(): func(v string) string {
		return fmt.Sprintf("v1 has expireAfter, a duration: write expire_after = %q instead.", migration.SecondsDuration(v))
	},
	migration.AttrTTLAfterEmpty.String(): func(v string) string {
		return fmt.Sprintf("v1 has consolidation policy WhenEmpty with consolidateAfter: write disruption { consolidation_policy = \"WhenEmpty\", consolidate_after = %q } instead.", migration.SecondsDuration(v))
	},
}

// tombstoneFinding is the error for tombstone f written as v (HCL syntax,
// "" when not known yet), reported at p: inside the tombstone, since
// Terraform points a diagnostic on a block at the resource but one on an
// attribute inside it at that attribute's line.
func tombstoneFinding(f migration.Field, p rules.Path, v string) rules.Finding {
	shown := v
	if shown == "" {
		shown = "(a value known at apply)"
	}
	written := f.Attr.String() + " = " + shown
	if strings.HasPrefix(v, "{") {
		written = f.Attr.String() + " " + shown // a block
	}
	return f.Removed(p, written, tombstoneAdvice[f.Attr.String()](v))
}
