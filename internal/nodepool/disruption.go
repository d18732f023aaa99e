package nodepool

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// CRD patterns (karpenter.sh_nodepools.yaml v1.14.1). The API server
// matches them with Go's regexp, unanchored where the pattern is.
var (
	expireAfterRE  = regexp.MustCompile(`^(([0-9]+(s|m|h))+|Never)$`) // also consolidateAfter
	gracePeriodRE  = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	budgetDurRE    = regexp.MustCompile(`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`)
	budgetNodesRE  = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	budgetSchedRE  = regexp.MustCompile(`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`)
	budgetReasons  = []string{"Underutilized", "Empty", "Drifted"}
	consolidations = []string{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"}
)

// MaxBudgets is the CRD's maxItems on disruption.budgets.
const MaxBudgets = 50

// durationField describes one duration attribute for messages.
type durationField struct {
	path    rules.Path
	crd     string // field name in the CRD
	re      *regexp.Regexp
	never   bool // "Never" allowed
	example string
}

// checkDuration reports a value the CRD pattern rejects, or one it accepts
// but Karpenter cannot decode (a Go duration overflow).
func checkDuration(f durationField, v string) rules.Findings {
	if !f.re.MatchString(v) {
		hint := durationHint(v, f)
		return rules.Findings{rules.New(ruleDuration, f.path,
			"%s %q does not match the CRD pattern %s; the API server rejects the NodePool (\"%s in body should match '%s'\").%s",
			f.crd, v, f.re, f.crd, f.re, hint)}
	}
	if v == "Never" {
		return nil
	}
	if _, err := time.ParseDuration(v); err != nil {
		return rules.Findings{rules.New(ruleDuration, f.path,
			"%s %q matches the CRD pattern but is not a Go duration Karpenter can decode (%v); the controller fails to read the NodePool. Use a smaller value, e.g. %q.",
			f.crd, v, err, f.example)}
	}
	return nil
}

func durationHint(v string, f durationField) string {
	var hints []string
	switch {
	case v == "":
		hints = append(hints, "An empty string is not a duration; leave the attribute null for Karpenter's default.")
	case strings.HasSuffix(v, "d"):
		hints = append(hints, "Days are not a unit: write hours, e.g. \"720h\" for 30 days.")
	case strings.Contains(v, "."):
		hints = append(hints, "Fractions are not allowed: write \"1h30m\" rather than \"1.5h\".")
	case strings.Contains(v, "ms") || strings.Contains(v, "us") || strings.Contains(v, "ns"):
		hints = append(hints, "Only s, m and h are units here.")
	case v == "Never" && !f.never:
		hints = append(hints, "Never is not allowed here.")
	case strings.EqualFold(v, "never") && f.never:
		hints = append(hints, "Write \"Never\" (case-sensitive).")
	}
	hints = append(hints, "Example: \""+f.example+"\".")
	return " " + strings.Join(hints, " ")
}

// checkTemplateDurations: expire_after and termination_grace_period.
func checkTemplateDurations(p Pool) rules.Findings {
	var fs rules.Findings
	spec := p.spec()
	for _, d := range []struct {
		f durationField
		v string
	}{
		{durationField{pathExpireAfter, "spec.template.spec.expireAfter", expireAfterRE, true, "720h"}, spec.ExpireAfter},
		{durationField{pathTerminationGracePeriod, "spec.template.spec.terminationGracePeriod", gracePeriodRE, false, "48h"}, spec.TerminationGracePeriod},
	} {
		if p.Unknown.Is(d.f.path) || (d.v == "" && !p.Empty.Has(d.f.path)) {
			continue
		}
		fs = append(fs, checkDuration(d.f, d.v)...)
	}
	return fs
}

// checkDisruption: consolidateAfter required inside disruption, the
// consolidation policy enum of the release, and the budgets.
func checkDisruption(p Pool, kv versions.Karpenter) rules.Findings {
	d := p.Manifest.Spec.Disruption
	if d == nil || p.Unknown.Is(pathDisruption) {
		return nil
	}
	var fs rules.Findings
	switch {
	case p.Unknown.Is(pathConsolidateAfter):
	case d.ConsolidateAfter == nil:
		fs = append(fs, rules.New(ruleConsolidateAfterRequired, pathConsolidateAfter,
			"disruption is set without consolidateAfter; the API server rejects the NodePool (\"spec.disruption.consolidateAfter: Required value\"): the CRD's default (consolidateAfter 0s) applies only when the whole disruption is absent. Set it, e.g. 0s (consolidate as soon as possible), 5m, or Never.").
			WithFix(rules.Fix{Value: `"0s"`}))
	default:
		fs = append(fs, checkDuration(durationField{pathConsolidateAfter, "spec.disruption.consolidateAfter", expireAfterRE, true, "5m"}, *d.ConsolidateAfter)...)
	}
	if !p.Unknown.Is(pathConsolidationPolicy) && (d.ConsolidationPolicy != "" || p.Empty.Has(pathConsolidationPolicy)) {
		fs = append(fs, checkPolicy(d.ConsolidationPolicy, kv)...)
	}
	if p.Unknown.Is(pathBudgets) {
		return fs
	}
	if len(d.Budgets) > MaxBudgets {
		fs = append(fs, rules.New(ruleBudgetsTooMany, pathBudgets,
			"%d budgets are listed; the CRD allows at most %d (maxItems) and the API server rejects the NodePool. When several budgets are active Karpenter uses the most restrictive; merge schedules that share a nodes value.",
			len(d.Budgets), MaxBudgets))
	}
	for i, b := range d.Budgets {
		bp := pathBudgets.Index(i)
		if np := bp.Attr("nodes"); !p.Unknown.Is(np) && !budgetNodesRE.MatchString(b.Nodes) {
			fs = append(fs, rules.New(ruleBudgetNodes, np,
				"budget nodes = %q does not match ^((100|[0-9]{1,2})%%|[0-9]+)$ (nodes is required); the API server rejects the NodePool. Write a whole number of nodes (\"5\") or a percentage from 0%% to 100%% (\"10%%\"), without spaces.%s",
				b.Nodes, nodesHint(b.Nodes)))
		}
		sp, dp := bp.Attr("schedule"), bp.Attr("duration")
		schedKnown, durKnown := !p.Unknown.Is(sp), !p.Unknown.Is(dp)
		if schedKnown && durKnown && (b.Schedule == nil) != (b.Duration == nil) {
			missing, at := "duration", dp
			if b.Schedule == nil {
				missing, at = "schedule", sp
			}
			fs = append(fs, rules.New(ruleBudgetScheduleDuration, at,
				"budget %d sets %s without %s; the API server rejects the NodePool (\"'schedule' must be set with 'duration'\"). A scheduled budget needs both: schedule says when it starts (cron, UTC), duration how long it stays active (e.g. \"8h\"); drop both for an always-active budget.",
				i, otherOf(missing), missing))
		}
		if schedKnown && b.Schedule != nil {
			fs = append(fs, checkSchedule(*b.Schedule, sp)...)
		}
		if durKnown && b.Duration != nil {
			fs = append(fs, checkDuration(durationField{dp, "spec.disruption.budgets[" + itoa(i) + "].duration", budgetDurRE, false, "8h"}, *b.Duration)...)
		}
		if rp := bp.Attr("reasons"); !p.Unknown.Within(rp) {
			fs = append(fs, checkReasons(b.Reasons, rp)...)
		}
	}
	return fs
}

func otherOf(missing string) string {
	if missing == "duration" {
		return "schedule"
	}
	return "duration"
}

func nodesHint(v string) string {
	if strings.HasSuffix(strings.TrimSpace(v), "%") && !strings.Contains(v, " ") {
		return " Percentages above 100% are not allowed."
	}
	return ""
}

func checkPolicy(policy string, kv versions.Karpenter) rules.Findings {
	allowed := []string{"WhenEmpty", "WhenEmptyOrUnderutilized"}
	if kv.AtLeast(14, 0) {
		allowed = append(allowed, "Balanced")
	}
	if slices.Contains(allowed, policy) {
		return nil
	}
	if f, ok := migration.ConsolidationPolicy(policy, pathConsolidationPolicy); ok {
		return rules.Findings{f}
	}
	detail := "%q is not in the consolidationPolicy enum of Karpenter %s (%s); the API server rejects the NodePool (\"Unsupported value\")."
	var fix *rules.Fix
	switch policy {
	case "Balanced":
		detail += " Balanced was added in Karpenter 1.14.0 (kubernetes-sigs/karpenter#2962): use WhenEmptyOrUnderutilized, or check against the 1.14+ release you run."
		fix = &rules.Fix{Value: `"WhenEmptyOrUnderutilized"`}
	case "":
		detail += " Leave it unset for the default, WhenEmptyOrUnderutilized."
	default:
		for _, c := range consolidations {
			if strings.EqualFold(c, policy) {
				detail += " The enum is case-sensitive."
				fix = &rules.Fix{Value: strconv.Quote(c)}
			}
		}
	}
	f := rules.New(ruleConsolidationPolicy, pathConsolidationPolicy, detail, policy, kv, strings.Join(allowed, ", "))
	f.Fix = fix
	return rules.Findings{f}
}

func checkSchedule(s string, p rules.Path) rules.Findings {
	if !budgetSchedRE.MatchString(s) {
		return rules.Findings{rules.New(ruleBudgetSchedule, p,
			"schedule %q does not match the CRD pattern (an @yearly/@monthly/@weekly/@daily/@hourly descriptor or five cron fields); the API server rejects the NodePool. Write standard cron in UTC, e.g. \"0 9 * * mon-fri\".", s)}
	}
	if err := parseCron(s); err != nil {
		hint := ""
		if strings.Contains(s, "TZ=") {
			hint = " Time zones are not supported: schedules are UTC."
		}
		return rules.Findings{rules.New(ruleBudgetSchedule, p,
			"schedule %q passes the CRD pattern but not Karpenter's cron parser (robfig/cron ParseStandard: %v). Karpenter then fails closed: every budget evaluation errors (\"invariant violated, invalid cron\") and it allows 0 disruptions for the whole pool, so nothing is consolidated, replaced on drift or expired.%s Write five fields (minute hour day-of-month month day-of-week) in UTC, e.g. \"0 9 * * mon-fri\".",
			s, err, hint)}
	}
	return nil
}

func checkReasons(reasons []string, p rules.Path) rules.Findings {
	var fs rules.Findings
	seen := map[string]bool{}
	for j, r := range reasons {
		rp := p.Index(j)
		switch {
		case !slices.Contains(budgetReasons, r):
			hint := ""
			for _, c := range budgetReasons {
				if strings.EqualFold(c, r) || strings.EqualFold(c, strings.ReplaceAll(r, "lis", "liz")) {
					hint = " Did you mean \"" + c + "\"? The enum is case-sensitive and American-spelled."
				}
			}
			if r == "Expired" {
				hint = " Expiration is not disruption that budgets gate in v1 (expireAfter is forceful)."
			}
			fs = append(fs, rules.New(ruleBudgetReason, rp,
				"reason %q is not one of Underutilized, Empty, Drifted; the API server rejects the NodePool (\"Unsupported value\").%s", r, hint))
		case seen[r]:
			fs = append(fs, rules.New(ruleBudgetReason, rp,
				"reason %q is listed twice; reasons is a set and the API server rejects the NodePool (\"Duplicate value\"). List it once.", r))
		}
		seen[r] = true
	}
	return fs
}

// The rules the checks of this file emit.
var (
	ruleConsolidateAfterRequired = rules.Register(rules.Rule{
		ID: "nodepool-consolidate-after-required", Severity: rules.Error, Category: Category,
		Title:     "disruption without consolidate_after",
		Behaviour: "consolidateAfter is required inside spec.disruption and has no field default (the {consolidateAfter: 0s} default applies only when the whole block is absent); the API server rejects the NodePool (\"spec.disruption.consolidateAfter: Required value\").",
		Source:    srcCRD + " disruption required: [consolidateAfter]",
		Bad:       example(disruption(`consolidation_policy = "WhenEmpty"`)),
		Good:      example(disruption(`consolidation_policy = "WhenEmpty"`, `consolidate_after = "5m"`)),
	})
	ruleDuration = rules.Register(rules.Rule{
		ID: "nodepool-duration-invalid", Severity: rules.Error, Category: Category,
		Title:     "duration the CRD pattern rejects",
		Behaviour: "Durations are strings matched by the CRD: expire_after and consolidate_after ^(([0-9]+(s|m|h))+|Never)$, termination_grace_period ^([0-9]+(s|m|h))+$ (no Never), budget duration ^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$ (hours and minutes only). Days, fractions, spaces and ms are rejected (\"should match '<pattern>'\"); a value too large for a Go duration passes the pattern but Karpenter cannot decode the NodePool.",
		Source:    srcCRD + " expireAfter, terminationGracePeriod, disruption.consolidateAfter, budgets[].duration patterns",
		Bad:       example(`expire_after = "30d"`),
		Good:      example(`expire_after = "720h"`),
	})
	ruleConsolidationPolicy = rules.Register(rules.Rule{
		ID: "nodepool-consolidation-policy-invalid", Severity: rules.Error, Category: Category,
		Title:     "consolidation_policy not in the CRD enum of this Karpenter release",
		Behaviour: "The CRD enum is WhenEmpty and WhenEmptyOrUnderutilized, plus Balanced from Karpenter 1.14.0 (kubernetes-sigs/karpenter#2962); the API server rejects anything else (\"Unsupported value\"). The enum is case-sensitive.",
		Source:    srcCRD + " disruption.consolidationPolicy enum; kubernetes-sigs/karpenter#2962",
		Bad:       atVersion("1.13", example(disruption(`consolidation_policy = "Balanced"`, `consolidate_after = "5m"`))),
		Good:      atVersion("1.13", example(disruption(`consolidation_policy = "WhenEmptyOrUnderutilized"`, `consolidate_after = "5m"`))),
	})
	ruleBudgetNodes = rules.Register(rules.Rule{
		ID: "nodepool-budget-nodes-invalid", Severity: rules.Error, Category: Category,
		Title:     "budget nodes is not a count or a percentage",
		Behaviour: "nodes is required in every budget and must match ^((100|[0-9]{1,2})%|[0-9]+)$: a whole number of nodes or 0%-100%; the API server rejects anything else.",
		Source:    srcCRD + " disruption.budgets[].nodes",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "10 %"`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "10%"`))),
	})
	ruleBudgetScheduleDuration = rules.Register(rules.Rule{
		ID: "nodepool-budget-schedule-without-duration", Severity: rules.Error, Category: Category,
		Title:     "budget schedule without duration, or duration without schedule",
		Behaviour: "The CRD rejects the NodePool: \"'schedule' must be set with 'duration'\" (self.all(x, has(x.schedule) == has(x.duration))). A budget without both is always active.",
		Source:    srcCRD + " disruption.budgets x-kubernetes-validations",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 9 * * mon-fri"`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 9 * * mon-fri"`, `duration = "8h"`))),
	})
	ruleBudgetSchedule = rules.Register(rules.Rule{
		ID: "nodepool-budget-schedule-invalid", Severity: rules.Error, Category: Category,
		Title:     "budget schedule is not a standard 5-field cron",
		Behaviour: "The CRD pattern is loose (an @descriptor prefix, or five whitespace-separated parts); Karpenter then parses \"TZ=UTC <schedule>\" with robfig/cron ParseStandard. A schedule the pattern accepts but cron does not (six fields, a timezone, ranges out of bounds, @dailyx) fails closed: every budget evaluation errors (\"invariant violated, invalid cron\") and Karpenter allows 0 disruptions for the whole pool: no consolidation, no drift replacement, no expiration.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go Budget.IsActive, GetAllowedDisruptions (\"fail closed\"); " + srcCRD + " budgets[].schedule pattern",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 0 9 * * mon-fri"`, `duration = "8h"`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 9 * * mon-fri"`, `duration = "8h"`))),
	})
	ruleBudgetReason = rules.Register(rules.Rule{
		ID: "nodepool-budget-reason-invalid", Severity: rules.Error, Category: Category,
		Title:     "budget reason not in Underutilized, Empty, Drifted, or repeated",
		Behaviour: "reasons is a set (x-kubernetes-list-type: set) of the enum Underutilized, Empty, Drifted; the API server rejects other values (\"Unsupported value\") and repeats (\"Duplicate value\").",
		Source:    srcCRD + " disruption.budgets[].reasons",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "1"`, `reasons = ["Underutilised"]`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "1"`, `reasons = ["Underutilized"]`))),
	})
	ruleBudgetsTooMany = rules.Register(rules.Rule{
		ID: "nodepool-budgets-too-many", Severity: rules.Error, Category: Category,
		Title:     "more than 50 disruption budgets",
		Behaviour: "The CRD sets maxItems: 50 on disruption.budgets; the API server rejects the NodePool (\"Too many: 51: must have at most 50 items\").",
		Source:    srcCRD + " disruption.budgets maxItems",
		Bad:       example(disruption(`consolidate_after = "5m"`, rules.Block(`dynamic "budgets"`, `for_each = range(51)`, rules.Block("content", `nodes = "1"`)))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "1"`))),
	})
)
