package nodepool

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// base is a valid pool: Validate must find nothing.
func base() Pool { return newPool("default", ClassFacts{}, "default", "kubernetes.io/arch In amd64") }

func strp(s string) *string { return &s }

type vcase struct {
	name   string
	karp   string
	mutate func(p *Pool)
	rule   string // "" = no findings at all
	sev    rules.Severity
	path   string
	detail []string
	// fix: field and value pairs the finding's fix writes (value "":
	// removes the field), see rulestest.FixWrites.
	fix [][2]string
}

func runValidateCases(t *testing.T, cases []vcase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := base()
			c.mutate(&p)
			v := versions.DefaultKarpenter
			if c.karp != "" {
				v = kv(c.karp)
			}
			fs := Validate(p, v)
			if c.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("want no findings, got %v", fs)
				}
				return
			}
			f := only(t, fs, c.rule)
			if f.Severity != c.sev || (c.path != "" && f.Path.String() != c.path) {
				t.Errorf("got %v", f)
			}
			mustContain(t, f.Detail, c.detail...)
			for _, w := range c.fix {
				if !rulestest.FixWrites(f, w[0], w[1]) {
					t.Errorf("the fix does not write %s = %s: %+v", w[0], w[1], f.Fix)
				}
			}
		})
	}
}

func tmpl(p *Pool) *manifest.NodeClaimTemplateSpec { return &p.Manifest.Spec.Template.Spec }

func setLabels(p *Pool, kvs ...string) {
	m := map[string]string{}
	for i := 0; i+1 < len(kvs); i += 2 {
		m[kvs[i]] = kvs[i+1]
	}
	p.Manifest.Spec.Template.Metadata = &manifest.TemplateMeta{Labels: m}
}

func TestValidateObject(t *testing.T) {
	runValidateCases(t, []vcase{
		{name: "valid", mutate: func(p *Pool) {}},
		{name: "name upper case", mutate: func(p *Pool) { p.Manifest.Metadata.Name = "GPU_Pool" },
			rule: ruleName.ID, sev: rules.Error, path: "name", detail: []string{`e.g. "gpu-pool"`}},
		{name: "name too long for a label", mutate: func(p *Pool) { p.Manifest.Metadata.Name = strings.Repeat("a", 64) },
			rule: ruleName.ID, sev: rules.Error, detail: []string{"karpenter.sh/nodepool=<name>", "63 characters"}},
		{name: "name unknown", mutate: func(p *Pool) { p.Manifest.Metadata.Name = ""; p.Unknown.Add(pathName) }},
		{name: "class name empty", mutate: func(p *Pool) { tmpl(p).NodeClassRef.Name = "" },
			rule: ruleNodeClassRef.ID, sev: rules.Error, path: "node_class.name", detail: []string{"name may not be empty"},
			fix: [][2]string{{"node_class.name", `"<EC2NodeClass name>"`}}},
		{name: "class group empty", mutate: func(p *Pool) { tmpl(p).NodeClassRef = NodeClassRef(strp(""), nil, "default") },
			rule: ruleNodeClassRef.ID, sev: rules.Error, path: "node_class.group", detail: []string{"group may not be empty"}},
		{name: "class name not a DNS name", mutate: func(p *Pool) { tmpl(p).NodeClassRef.Name = "My_Class" },
			rule: ruleNodeClassRef.ID, sev: rules.Error, path: "node_class.name"},
		{name: "class name unknown", mutate: func(p *Pool) { tmpl(p).NodeClassRef.Name = ""; p.Unknown.Add(pathNodeClass.Attr("name")) }},
		{name: "group with a resource and version", mutate: func(p *Pool) {
			tmpl(p).NodeClassRef = NodeClassRef(strp("ec2nodeclasses.karpenter.k8s.aws/v1"), strp("EC2NodeClass"), "default")
		}, rule: ruleNodeClassRef.ID, sev: rules.Error, path: "node_class.group", detail: []string{"the API server rejects the NodePool", "should match '^[^/]*$'"}},
		{name: "class of another provider", mutate: func(p *Pool) {
			tmpl(p).NodeClassRef = NodeClassRef(strp("karpenter.azure.com"), strp("AKSNodeClass"), "default")
		}, rule: ruleNodeClassUnsupported.ID, sev: rules.Error, path: "node_class.group", detail: []string{"silently ignores"},
			fix: [][2]string{{"node_class.group", `"karpenter.k8s.aws"`}, {"node_class.kind", `"EC2NodeClass"`}}},
		{name: "kind case", mutate: func(p *Pool) { tmpl(p).NodeClassRef = NodeClassRef(nil, strp("Ec2NodeClass"), "default") },
			rule: ruleNodeClassUnsupported.ID, sev: rules.Error, path: "node_class.kind", detail: []string{"case-sensitive"}},
	})
	// group/kind default when not written.
	if ref := NodeClassRef(nil, nil, "x"); ref.Group != "karpenter.k8s.aws" || ref.Kind != "EC2NodeClass" {
		t.Error(ref)
	}
}

func TestValidateLabels(t *testing.T) {
	many := func(p *Pool) {
		var kvs []string
		for i := 0; i < 101; i++ {
			kvs = append(kvs, "example.com/k"+itoa(i), "v")
		}
		setLabels(p, kvs...)
	}
	runValidateCases(t, []vcase{
		{name: "valid", mutate: func(p *Pool) { setLabels(p, "example.com/team", "a", "karpenter.sh/capacity-type", "spot", "team", "") }},
		{name: "value", mutate: func(p *Pool) { setLabels(p, "example.com/team", "a/b") },
			rule: ruleLabelInvalid.ID, sev: rules.Error, path: `labels["example.com/team"]`},
		{name: "key", mutate: func(p *Pool) { setLabels(p, "team name", "a") },
			rule: ruleLabelInvalid.ID, sev: rules.Error, detail: []string{`invalid key name "team name" in labels`}},
		{name: "unknown value skipped", mutate: func(p *Pool) { setLabels(p, "example.com/team", ""); p.Unknown.Add(pathLabels.Key("example.com/team")) }},
		{name: "all unknown", mutate: func(p *Pool) { many(p); p.Unknown.Add(pathLabels) }},
		{name: "nodepool", mutate: func(p *Pool) { setLabels(p, "karpenter.sh/nodepool", "x") },
			rule: ruleLabelNodePool.ID, sev: rules.Error, detail: []string{"invalid key name \\\"karpenter.sh/nodepool\\\" in labels, restricted"}},
		{name: "too many", mutate: many, rule: ruleLabelsTooMany.ID, sev: rules.Error, path: "labels", detail: []string{"Too many: 101"}},
		// The restricted-domain rules are the requirement-key rules (same CEL and runtime check).
		{name: "suffix match", mutate: func(p *Pool) { setLabels(p, "notkarpenter.sh/x", "a") },
			rule: "requirement-key-karpenter-domain", sev: rules.Error, path: `labels["notkarpenter.sh/x"]`},
		{name: "hostname", mutate: func(p *Pool) { setLabels(p, "kubernetes.io/hostname", "a") }, rule: "requirement-key-hostname", sev: rules.Error},
		{name: "aws allow-list", mutate: func(p *Pool) { setLabels(p, "karpenter.k8s.aws/team", "a") }, rule: "requirement-key-aws-domain", sev: rules.Error},
		{name: "aws well-known", mutate: func(p *Pool) { setLabels(p, "karpenter.k8s.aws/instance-family", "m5") }},
		{name: "ec2nodeclass", mutate: func(p *Pool) { setLabels(p, "karpenter.k8s.aws/ec2nodeclass", "a") }, rule: "requirement-key-ec2nodeclass", sev: rules.Error},
		{name: "kubernetes.io before 1.9", karp: "1.8", mutate: func(p *Pool) { setLabels(p, "node-role.kubernetes.io/worker", "true") },
			rule: "requirement-key-kubernetes-domain", sev: rules.Error},
		{name: "kubernetes.io exception before 1.9", karp: "1.8", mutate: func(p *Pool) { setLabels(p, "node.kubernetes.io/worker", "true", "kops.k8s.io/x", "y") }},
		{name: "kubernetes.io from 1.9", karp: "1.9", mutate: func(p *Pool) { setLabels(p, "node-role.kubernetes.io/worker", "true") }},
		{name: "contradicts requirement", mutate: func(p *Pool) {
			setLabels(p, "example.com/team", "a")
			tmpl(p).Requirements = append(tmpl(p).Requirements, parseReq("example.com/team In b,c"))
		}, rule: ruleLabelContradicts.ID, sev: rules.Warning, detail: []string{"example.com/team=a", "In [b c]"}},
		{name: "agrees with requirement", mutate: func(p *Pool) {
			setLabels(p, "example.com/team", "a")
			tmpl(p).Requirements = append(tmpl(p).Requirements, parseReq("example.com/team In a,b"))
		}},
	})
}

func TestValidateRequirementsAreTheRequirementsPackages(t *testing.T) {
	runValidateCases(t, []vcase{
		{name: "operator", mutate: func(p *Pool) {
			tmpl(p).Requirements = append(tmpl(p).Requirements, parseReq("kubernetes.io/arch in arm64"))
		},
			rule: "requirement-operator-unknown", sev: rules.Error, path: "requirements[1].operator"},
		{name: "Gte before 1.9", karp: "1.8", mutate: func(p *Pool) {
			tmpl(p).Requirements = append(tmpl(p).Requirements, parseReq("karpenter.k8s.aws/instance-cpu Gte 4"))
		}, rule: "requirement-gte-lte-before-1-9", sev: rules.Error},
		{name: "nodepool key", mutate: func(p *Pool) {
			tmpl(p).Requirements = append(tmpl(p).Requirements, parseReq("karpenter.sh/nodepool In a"))
		},
			rule: "requirement-key-nodepool", sev: rules.Error},
		{name: "unknown values skipped", mutate: func(p *Pool) {
			tmpl(p).Requirements = append(tmpl(p).Requirements, parseReq("karpenter.sh/capacity-type In"))
			p.Unknown.Add(pathRequirements.Index(1).Attr("values"))
		}},
	})
	p := base()
	for i := 0; i < 101; i++ {
		tmpl(&p).Requirements = append(tmpl(&p).Requirements, parseReq("example.com/k"+itoa(i)+" Exists"))
	}
	only(t, Validate(p, versions.DefaultKarpenter), "requirements-too-many")
}

func TestValidateTaints(t *testing.T) {
	taint := func(k, v, e string) manifest.Taint { return manifest.Taint{Key: k, Value: v, Effect: e} }
	runValidateCases(t, []vcase{
		{name: "valid", mutate: func(p *Pool) {
			tmpl(p).Taints = []manifest.Taint{taint("example.com/gpu", "true", "NoSchedule")}
			tmpl(p).StartupTaints = []manifest.Taint{taint("example.com/gpu", "", "NoExecute")}
		}},
		{name: "value with slash", mutate: func(p *Pool) { tmpl(p).Taints = []manifest.Taint{taint("example.com/a", "team/a", "NoSchedule")} },
			rule: ruleTaintInvalid.ID, sev: rules.Error, path: "taints[0].value", detail: []string{"the CRD alone would let a \"/\" through"}},
		{name: "explicit empty value", mutate: func(p *Pool) {
			tmpl(p).StartupTaints = []manifest.Taint{taint("example.com/a", "", "NoSchedule")}
			p.Empty.Add(pathStartupTaints.Index(0).Attr("value"))
		}, rule: ruleTaintInvalid.ID, sev: rules.Error, path: "startup_taints[0].value", detail: []string{"omit value (null)"}},
		{name: "no effect", mutate: func(p *Pool) { tmpl(p).Taints = []manifest.Taint{taint("example.com/a", "", "")} },
			rule: ruleTaintInvalid.ID, sev: rules.Error, path: "taints[0].effect"},
		{name: "effect case", mutate: func(p *Pool) { tmpl(p).Taints = []manifest.Taint{taint("example.com/a", "", "noschedule")} },
			rule: ruleTaintInvalid.ID, sev: rules.Error, path: "taints[0].effect"},
		{name: "empty key", mutate: func(p *Pool) { tmpl(p).Taints = []manifest.Taint{taint("", "", "NoSchedule")} },
			rule: ruleTaintInvalid.ID, sev: rules.Error, path: "taints[0].key", detail: []string{"a key is required"}},
		{name: "unknown effect skipped", mutate: func(p *Pool) {
			tmpl(p).Taints = []manifest.Taint{taint("example.com/a", "", "")}
			p.Unknown.Add(pathTaints.Index(0).Attr("effect"))
		}},
		{name: "duplicate across lists", mutate: func(p *Pool) {
			tmpl(p).Taints = []manifest.Taint{taint("example.com/a", "x", "NoSchedule")}
			tmpl(p).StartupTaints = []manifest.Taint{taint("example.com/a", "y", "NoSchedule")}
		}, rule: ruleTaintDuplicate.ID, sev: rules.Error, path: "startup_taints[0]", detail: []string{"duplicate taint Key/Effect pair example.com/a=NoSchedule", "taints[0]"}},
		{name: "duplicate within a list", mutate: func(p *Pool) {
			tmpl(p).Taints = []manifest.Taint{taint("example.com/a", "", "NoSchedule"), taint("example.com/a", "", "NoSchedule")}
		}, rule: ruleTaintDuplicate.ID, sev: rules.Error, path: "taints[1]"},
		{name: "unregistered as taint", mutate: func(p *Pool) { tmpl(p).Taints = []manifest.Taint{taint("karpenter.sh/unregistered", "", "NoExecute")} },
			rule: ruleTaintKarpenterOwned.ID, sev: rules.Warning, path: "taints[0].key", detail: []string{"only pods tolerating it fit"}},
		{name: "disrupted", mutate: func(p *Pool) {
			tmpl(p).StartupTaints = []manifest.Taint{taint("karpenter.sh/disrupted", "", "NoSchedule")}
		},
			rule: ruleTaintKarpenterOwned.ID, sev: rules.Warning},
		{name: "list unknown", mutate: func(p *Pool) {
			tmpl(p).Taints = []manifest.Taint{taint("", "", "")}
			p.Unknown.Add(pathTaints)
		}},
	})
}

func TestValidateDisruption(t *testing.T) {
	dis := func(p *Pool, d manifest.Disruption) { p.Manifest.Spec.Disruption = &d }
	budget := func(nodes string, sched, dur *string, reasons ...string) manifest.Budget {
		return manifest.Budget{Nodes: nodes, Schedule: sched, Duration: dur, Reasons: reasons}
	}
	runValidateCases(t, []vcase{
		{name: "valid", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: strp("1h30m"), Budgets: []manifest.Budget{
				budget("10%", nil, nil), budget("0", strp("0 9 * * mon-fri"), strp("8h"), "Drifted", "Underutilized"),
				budget("100%", strp("@daily"), strp("1h30m0s")),
			}})
			tmpl(p).ExpireAfter, tmpl(p).TerminationGracePeriod = "Never", "48h"
		}},
		{name: "consolidate after required", mutate: func(p *Pool) { dis(p, manifest.Disruption{ConsolidationPolicy: "WhenEmpty"}) },
			rule: ruleConsolidateAfterRequired.ID, sev: rules.Error, path: "disruption.consolidate_after"},
		{name: "consolidate after unknown", mutate: func(p *Pool) { dis(p, manifest.Disruption{}); p.Unknown.Add(pathConsolidateAfter) }},
		{name: "consolidate after pattern", mutate: func(p *Pool) { dis(p, manifest.Disruption{ConsolidateAfter: strp("never")}) },
			rule: ruleDuration.ID, sev: rules.Error, path: "disruption.consolidate_after", detail: []string{`Write "Never"`}},
		{name: "Balanced before 1.14", karp: "1.13", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidationPolicy: "Balanced", ConsolidateAfter: strp("0s")})
		},
			rule: ruleConsolidationPolicy.ID, sev: rules.Error, detail: []string{"kubernetes-sigs/karpenter#2962"}},
		{name: "Balanced from 1.14", karp: "1.14", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidationPolicy: "Balanced", ConsolidateAfter: strp("0s")})
		}},
		{name: "v1beta1 policy", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidationPolicy: "WhenUnderutilized", ConsolidateAfter: strp("0s")})
		},
			rule: "v1beta1-when-underutilized", sev: rules.Error, path: "disruption.consolidation_policy", detail: []string{`"WhenEmptyOrUnderutilized"`, `"0s"`},
			fix: [][2]string{{"disruption.consolidation_policy", `"WhenEmptyOrUnderutilized"`}}},
		{name: "v1beta1 annotation", mutate: func(p *Pool) {
			p.Manifest.Spec.Template.Metadata = &manifest.TemplateMeta{Annotations: map[string]string{"karpenter.sh/do-not-evict": "true", "example.com/x": "y"}}
		},
			rule: "v1beta1-annotation-removed", sev: rules.Error, path: `annotations["karpenter.sh/do-not-evict"]`, detail: []string{`"karpenter.sh/do-not-disrupt" with the value "true"`},
			fix: [][2]string{{`annotations["karpenter.sh/do-not-disrupt"]`, `"true"`}, {`annotations["karpenter.sh/do-not-evict"]`, ""}}},
		{name: "v1 annotation", mutate: func(p *Pool) {
			p.Manifest.Spec.Template.Metadata = &manifest.TemplateMeta{Annotations: map[string]string{"karpenter.sh/do-not-disrupt": "true"}}
		}},
		{name: "empty policy", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s")})
			p.Empty.Add(pathConsolidationPolicy)
		}, rule: ruleConsolidationPolicy.ID, sev: rules.Error},
		{name: "nodes", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("101%", nil, nil)}})
		},
			rule: ruleBudgetNodes.ID, sev: rules.Error, path: "disruption.budgets[0].nodes", detail: []string{"above 100%"}},
		{name: "nodes missing", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("", nil, nil)}})
		},
			rule: ruleBudgetNodes.ID, sev: rules.Error},
		{name: "duration without schedule", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", nil, strp("1h"))}})
		}, rule: ruleBudgetScheduleDuration.ID, sev: rules.Error, path: "disruption.budgets[0].schedule"},
		{name: "schedule unknown", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", nil, strp("1h"))}})
			p.Unknown.Add(pathBudgets.Index(0).Attr("schedule"))
		}},
		{name: "schedule pattern", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", strp("daily"), strp("1h"))}})
		}, rule: ruleBudgetSchedule.ID, sev: rules.Error, detail: []string{"does not match the CRD pattern"}},
		{name: "schedule with time zone", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", strp("TZ=Europe/Paris 0 9 * * *"), strp("1h"))}})
		}, rule: ruleBudgetSchedule.ID, sev: rules.Error, detail: []string{"fails closed", "Time zones are not supported", "0 disruptions"}},
		{name: "schedule descriptor typo", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", strp("@dailyx"), strp("1h"))}})
		}, rule: ruleBudgetSchedule.ID, sev: rules.Error, detail: []string{"unrecognized descriptor"}},
		{name: "budget duration seconds", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", strp("@daily"), strp("30s"))}})
		}, rule: ruleDuration.ID, sev: rules.Error, path: "disruption.budgets[0].duration"},
		{name: "reason", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", nil, nil, "drifted")}})
		}, rule: ruleBudgetReason.ID, sev: rules.Error, path: "disruption.budgets[0].reasons[0]", detail: []string{`Did you mean "Drifted"`}},
		{name: "reason twice", mutate: func(p *Pool) {
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{budget("1", nil, nil, "Empty", "Empty")}})
		}, rule: ruleBudgetReason.ID, sev: rules.Error, path: "disruption.budgets[0].reasons[1]", detail: []string{"Duplicate value"}},
		{name: "too many budgets", mutate: func(p *Pool) {
			var bs []manifest.Budget
			for i := 0; i < 51; i++ {
				bs = append(bs, budget("1", nil, nil))
			}
			dis(p, manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: bs})
		}, rule: ruleBudgetsTooMany.ID, sev: rules.Error, path: "disruption.budgets"},
		{name: "expire after days", mutate: func(p *Pool) { tmpl(p).ExpireAfter = "30d" },
			rule: ruleDuration.ID, sev: rules.Error, path: "expire_after", detail: []string{`"720h" for 30 days`}},
		{name: "expire after empty", mutate: func(p *Pool) { p.Empty.Add(pathExpireAfter) },
			rule: ruleDuration.ID, sev: rules.Error, path: "expire_after"},
		{name: "grace period never", mutate: func(p *Pool) { tmpl(p).TerminationGracePeriod = "Never" },
			rule: ruleDuration.ID, sev: rules.Error, path: "termination_grace_period", detail: []string{"Never is not allowed here"}},
		{name: "overflowing duration", mutate: func(p *Pool) { tmpl(p).ExpireAfter = "9999999999999h" },
			rule: ruleDuration.ID, sev: rules.Error, detail: []string{"matches the CRD pattern but is not a Go duration"}},
	})
}

func TestValidateSizing(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	i64 := func(v int64) *int64 { return &v }
	runValidateCases(t, []vcase{
		{name: "valid", mutate: func(p *Pool) {
			p.Manifest.Spec.Weight = i32(100)
			p.Manifest.Spec.Limits = map[string]string{"cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": "8", "hugepages-2Mi": "1Gi", "nodes": "0"}
		}},
		{name: "weight", mutate: func(p *Pool) { p.Manifest.Spec.Weight = i32(101) }, rule: ruleWeight.ID, sev: rules.Error, path: "weight"},
		{name: "weight unknown", mutate: func(p *Pool) { p.Manifest.Spec.Weight = i32(0); p.Unknown.Add(pathWeight) }},
		{name: "limit syntax", mutate: func(p *Pool) { p.Manifest.Spec.Limits = map[string]string{"cpu": "1,000"} },
			rule: ruleLimitInvalid.ID, sev: rules.Error, path: `limits["cpu"]`},
		{name: "limit the CRD pattern rejects", mutate: func(p *Pool) { p.Manifest.Spec.Limits = map[string]string{"memory": "1GiB"} },
			rule: ruleLimitInvalid.ID, sev: rules.Error},
		{name: "negative limit", mutate: func(p *Pool) { p.Manifest.Spec.Limits = map[string]string{"cpu": "-1"} },
			rule: ruleLimitNegative.ID, sev: rules.Error},
		{name: "unknown resource", mutate: func(p *Pool) { p.Manifest.Spec.Limits = map[string]string{"gpu": "8"} },
			rule: ruleLimitResource.ID, sev: rules.Warning, detail: []string{`did you mean "nvidia.com/gpu"?`}},
		{name: "unknown resource, plausible", mutate: func(p *Pool) { p.Manifest.Spec.Limits = map[string]string{"gpu-count": "8"} },
			rule: ruleLimitResource.ID, sev: rules.Warning, detail: []string{`need their domain`}},
		// One typo from a Kubernetes resource: the cap silently does not exist.
		{name: "misspelled resource", mutate: func(p *Pool) { p.Manifest.Spec.Limits = map[string]string{"cpu": "1000", "memroy": "4000Gi"} },
			rule: ruleLimitMisspelled.ID, sev: rules.Error, path: `limits["memroy"]`, detail: []string{`Did you mean "memory"?`, "no memory cap"}},
		{name: "misspelled resource, case", mutate: func(p *Pool) { p.Manifest.Spec.Limits = map[string]string{"CPU": "1000"} },
			rule: ruleLimitMisspelled.ID, sev: rules.Error, path: `limits["CPU"]`, detail: []string{`Did you mean "cpu"?`}},
		{name: "limit value unknown", mutate: func(p *Pool) {
			p.Manifest.Spec.Limits = map[string]string{"cpu": ""}
			p.Unknown.Add(pathLimits.Key("cpu"))
		}},
		{name: "static", karp: "1.8", mutate: func(p *Pool) {
			p.Manifest.Spec.Replicas = i64(3)
			p.Manifest.Spec.Limits = map[string]string{"nodes": "5"}
			p.Manifest.Spec.Disruption = &manifest.Disruption{ConsolidateAfter: strp("0s"), Budgets: []manifest.Budget{{Nodes: "1"}}}
		}},
		{name: "static before 1.8", karp: "1.7", mutate: func(p *Pool) { p.Manifest.Spec.Replicas = i64(3) },
			rule: ruleStaticVersion.ID, sev: rules.Error, path: "replicas", detail: []string{"prunes it"}},
		{name: "negative replicas", mutate: func(p *Pool) { p.Manifest.Spec.Replicas = i64(-1) }, rule: ruleReplicasNegative.ID, sev: rules.Error},
		{name: "static limits", mutate: func(p *Pool) {
			p.Manifest.Spec.Replicas = i64(3)
			p.Manifest.Spec.Limits = map[string]string{"nodes": "5", "cpu": "10"}
		}, rule: ruleStaticLimits.ID, sev: rules.Error, detail: []string{"limits on cpu"}, fix: [][2]string{{`limits["cpu"]`, ""}}},
		{name: "static weight", mutate: func(p *Pool) { p.Manifest.Spec.Replicas = i64(3); p.Manifest.Spec.Weight = i32(5) },
			rule: ruleStaticWeight.ID, sev: rules.Error},
		{name: "replicas unknown", mutate: func(p *Pool) {
			p.Manifest.Spec.Replicas = i64(0)
			p.Unknown.Add(pathReplicas)
			p.Manifest.Spec.Weight = i32(5)
		}},
		{name: "static consolidation", mutate: func(p *Pool) {
			p.Manifest.Spec.Replicas = i64(3)
			p.Manifest.Spec.Disruption = &manifest.Disruption{ConsolidateAfter: strp("5m")}
		}, rule: ruleStaticDisruption.ID, sev: rules.Warning, path: "disruption.consolidate_after", fix: [][2]string{{"disruption", ""}}},
	})
}

// Validate's family-table checks need only a literal ami_family.
func TestValidateFamilyTable(t *testing.T) {
	lit := func(f amifamily.Family, reqs ...string) Pool {
		return newPool("p", ClassFacts{Family: f}, "c", reqs...)
	}
	fam := "karpenter.k8s.aws/instance-family In "
	cases := []struct {
		name string
		p    Pool
		karp string
		rule string
		sev  rules.Severity
	}{
		{"windows arm64", lit(amifamily.Windows2022, fam+"m6g,c7g"), "1.14", ruleWindowsArm64.ID, rules.Error},
		{"windows mixed", lit(amifamily.Windows2022, fam+"m6g,m5"), "1.14", "", 0},
		{"os windows on linux", lit(amifamily.Bottlerocket, "kubernetes.io/os In windows"), "1.14", ruleOSMismatch.ID, rules.Error},
		{"os linux on windows", lit(amifamily.Windows2019, "kubernetes.io/os NotIn windows"), "1.14", ruleOSMismatch.ID, rules.Error},
		{"a1 on al2023", lit(amifamily.AL2023, fam+"a1"), "1.14", ruleA1.ID, rules.Error},
		{"a1 on al2", lit(amifamily.AL2, fam+"a1"), "1.14", "", 0},
		{"a1 mixed on al2023", lit(amifamily.AL2023, fam+"a1,m6g"), "1.14", "", 0},
		{"g5g on al2023 1.3", lit(amifamily.AL2023, fam+"g5g"), "1.3", ruleArm64GPU.ID, rules.Error},
		{"g5g on al2023 1.4", lit(amifamily.AL2023, fam+"g5g"), "1.4", "", 0},
		{"g5g on bottlerocket", lit(amifamily.Bottlerocket, fam+"g5g"), "1.0", "", 0},
		// instance-gpu-count is per type: offline the admission is a superset.
		{"g5g may be admitted", lit(amifamily.AL2, "karpenter.k8s.aws/instance-category In g", "karpenter.k8s.aws/instance-gpu-count Gt 4"), "1.14", ruleArm64GPU.ID, rules.Warning},
		{"family unknown", func() Pool {
			p := lit(amifamily.AL2, fam+"g5g")
			p.Unknown.Add(pathNodeClass.Attr("ami_family"))
			return p
		}(), "1.14", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Validate(c.p, kv(c.karp))
			if c.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("want none, got %v", fs)
				}
				return
			}
			if f := only(t, fs, c.rule); f.Severity != c.sev {
				t.Errorf("severity %v: %v", f.Severity, f)
			}
		})
	}
}

func TestParseCron(t *testing.T) {
	// Outcomes of robfig/cron/v3 v3.0.1 ParseStandard("TZ=UTC " + s), run
	// against the library once (it is not a dependency of this module).
	ok := []string{"0 9 * * mon-fri", "*/15 0-6 1,15 jan-mar SUN", "0 0 * * 0", "@hourly", "@annually", "@every 1h30m", "5/10 * ? * *", "0 22 * * 1-5", ",, * * * *", "1,,2 * * * *", "+5 * * * *"}
	bad := []string{"", "0 9 * * mon-fri *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 7", "@dailyx",
		"TZ=UTC 0 9 * * *", "1-2-3 * * * *", "*/0 * * * *", "5-1 * * * *", "a * * * *", "* * * * mon/fri", "1/2/3 * * * *", "@every 1d"}
	for _, s := range ok {
		if err := parseCron(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range bad {
		if err := parseCron(s); err == nil {
			t.Errorf("%q: accepted", s)
		}
	}
}

// Everything unknown (ValidateConfig of a pool whose attributes all come
// from other resources): no findings, whatever the placeholder values.
func TestValidateSkipsUnknowns(t *testing.T) {
	p := fuzzPool("BAD NAME", "bad key|a/b", "kubernetes.io/arch in arm64", "a=b/c:Bad", "30d|Never|x|y|z|@dailyx|1s", "cpu|-1", "AL2", 0, -1, 0x20f)
	for _, path := range []rules.Path{pathName, pathLabels, pathRequirements, pathTaints, pathStartupTaints, pathExpireAfter,
		pathTerminationGracePeriod, pathDisruption, pathLimits, pathWeight, pathReplicas, pathNodeClass} {
		p.Unknown.Add(path)
	}
	if fs := Validate(p, versions.DefaultKarpenter); len(fs) != 0 {
		t.Fatalf("%v", fs)
	}
	r := Check(p, instancetype.Embedded(), versions.DefaultKarpenter)
	if len(r.Findings) != 0 || r.FamiliesKnown {
		t.Fatalf("%v", r.Findings)
	}
}
