package manifestcheck

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// yamlFix is a finding's fix in the manifest's terms: each field to write
// under its parent or to remove from it, the alternatives a manifest can
// hold, and, for a value that may be meant, the ignore annotation.
func yamlFix(k *crd.Kind, f rules.Finding) string {
	if f.Fix == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range f.FixChanges() {
		if s := yamlChange(k, c); s != "" {
			b.WriteString(" " + s + ".")
		}
	}
	for _, c := range f.Fix.Or {
		if s := yamlChange(k, c); s != "" && b.Len() > 0 {
			b.WriteString(" Or " + strings.ToLower(s[:1]) + s[1:] + ".")
		} else if s != "" { // the change itself has no field here
			b.WriteString(" " + s + ".")
		}
	}
	if f.Fix.Acknowledge {
		fmt.Fprintf(&b, " If the value as written is meant, say why in the object's %s annotation: %q.", IgnoreAnnotation, f.Rule.ID+": <why>")
	}
	return b.String()
}

// yamlChange is one change of a fix as a sentence without its period; ""
// when the manifest has no such field or the change names no value.
func yamlChange(k *crd.Kind, c rules.Fix) string {
	switch {
	case c.Setting == rules.KarpenterVersionSetting && c.Value == "":
		return "Pass --karpenter-version with the release the cluster runs"
	case c.Setting == rules.KarpenterVersionSetting:
		return "Pass --karpenter-version " + strings.Trim(c.Value, `"`) + " once the cluster runs it"
	}
	mp, ok := k.ManifestPath(c.Field)
	_, last, hasLast := c.Field.Parent()
	if !ok || !hasLast || (!c.Remove && last.Kind != rules.KeyStep && c.Value == "") {
		return ""
	}
	parent, name := "", mp
	seps := ".["
	if last.Kind == rules.KeyStep {
		seps = "[" // a key may hold dots (karpenter.sh/do-not-disrupt)
	}
	if i := strings.LastIndexAny(mp, seps); i >= 0 {
		parent, name = mp[:i], strings.TrimSuffix(mp[i+1:], "]")
	}
	switch {
	case c.Remove && last.Kind == rules.IndexStep:
		return fmt.Sprintf("Remove item %s of %s", name, parent)
	case c.Remove && parent == "":
		return fmt.Sprintf("Remove `%s`", name)
	case c.Remove:
		return fmt.Sprintf("Remove `%s` from %s", name, parent)
	}
	value := c.Value
	if value == "" {
		value = "..."
	}
	if parent == "" {
		return fmt.Sprintf("Write `%s: %s`", name, value)
	}
	return fmt.Sprintf("Write `%s: %s` under %s", name, value, parent)
}
