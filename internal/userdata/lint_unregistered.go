package userdata

import (
	"regexp"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// karpenterKeyRE finds karpenter.sh/ keys in raw text, only to suggest a
// correction for a near miss.
var karpenterKeyRE = regexp.MustCompile(`karpenter\.sh/[A-Za-z0-9._-]+`)

// checkUnregistered requires Custom userData to register
// karpenter.sh/unregistered:NoExecute. Taints found by the structured
// checks count; as a fallback, the literal taint anywhere in the text (set
// through a variable, a file, a template) is accepted, since it cannot be
// proven absent then.
func (c *lintCtx) checkUnregistered(ud string) {
	for _, t := range c.registered {
		if t.Matches(taints.Unregistered) {
			return
		}
	}
	rest := ud
	for _, s := range c.ignored {
		rest = strings.ReplaceAll(rest, s, "")
	}
	if strings.Contains(rest, taints.Unregistered.String()) {
		return
	}
	c.add(rules.New(ruleUnregisteredMissing, rules.Path{}, "%s %s %s", c.missingWhat(), c.consequence(), c.suggestion(ud)))
}

func (c *lintCtx) missingWhat() string {
	if c.sawTaintFlag || len(c.registered) > 0 {
		return "The userData registers the node with " + quoteList(c.registered) + " but not with karpenter.sh/unregistered:NoExecute; Karpenter injects nothing into Custom userData."
	}
	return "The userData does not register the node with karpenter.sh/unregistered:NoExecute (no --register-with-taints, registerWithTaints or node-taints that includes it); Karpenter injects nothing into Custom userData."
}

func (c *lintCtx) consequence() string {
	if !c.karpenter.AtLeast(3, 0) {
		return "With Karpenter " + c.karpenter.String() + " registration fails with \"missing required startup taint, karpenter.sh/unregistered\" and the NodeClaim is deleted after the 15-minute registration timeout, over and over."
	}
	return "With Karpenter " + c.karpenter.String() + " the node registers anyway, Karpenter emits the Warning event UnregisteredTaintMissing, and pods can schedule before Karpenter has synced labels and taints (registration races)."
}

func (c *lintCtx) suggestion(ud string) string {
	fix := "Add it to the kubelet's taints, e.g. --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute' for bootstrap.sh, registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}] in a NodeConfig, or 'karpenter.sh/unregistered' = [':NoExecute'] in [settings.kubernetes.node-taints]."
	for _, t := range c.registered {
		if t.Key == taints.UnregisteredKey {
			return "Did you mean karpenter.sh/unregistered:NoExecute? " + quoteTaint(t) + " has the right key but effect " + strings.TrimSpace(t.Effect+"") + "; the effect must be NoExecute. " + fix
		}
	}
	candidates := []string{}
	for _, t := range c.registered {
		candidates = append(candidates, t.Key)
	}
	candidates = append(candidates, karpenterKeyRE.FindAllString(ud, -1)...)
	for _, k := range candidates {
		if k != taints.UnregisteredKey && (strings.HasPrefix(k, "karpenter.sh/") || levenshtein(k, taints.UnregisteredKey) <= 4) {
			return "Did you mean karpenter.sh/unregistered:NoExecute instead of " + k + "? " + fix
		}
	}
	return fix
}

func quoteList(ts []taints.Taint) string {
	if len(ts) == 0 {
		return "no taints"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// levenshtein is the edit distance between a and b, for "did you mean".
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
