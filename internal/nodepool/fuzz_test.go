package nodepool

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// fuzzPool builds a pool from fuzzed strings: fields are "|"-separated
// lists, so one input exercises several entries.
func fuzzPool(name, labels, reqs, tnts, durations, limits, family string, weight, replicas int64, flags uint16) Pool {
	split := func(s string) []string { return strings.Split(s, "|") }
	p := Pool{Unknown: rules.Unknowns{}, Empty: PathSet{}}
	p.Manifest.Metadata.Name = name
	p.Manifest.Spec.Template.Spec.NodeClassRef = NodeClassRef(nil, nil, name)
	lm := map[string]string{}
	ls := split(labels)
	for i := 0; i+1 < len(ls); i += 2 {
		lm[ls[i]] = ls[i+1]
	}
	p.Manifest.Spec.Template.Metadata = &manifest.TemplateMeta{Labels: lm}
	for _, r := range split(reqs) {
		f := strings.Fields(r)
		rq := manifest.Requirement{}
		if len(f) > 0 {
			rq.Key = f[0]
		}
		if len(f) > 1 {
			rq.Operator = f[1]
		}
		if len(f) > 2 {
			rq.Values = strings.Split(f[2], ",")
		}
		if len(f) > 3 {
			n := len(f[3]) - 2
			rq.MinValues = &n
		}
		p.Manifest.Spec.Template.Spec.Requirements = append(p.Manifest.Spec.Template.Spec.Requirements, rq)
	}
	for i, t := range split(tnts) {
		k, rest, _ := strings.Cut(t, "=")
		v, e, _ := strings.Cut(rest, ":")
		mt := manifest.Taint{Key: k, Value: v, Effect: e}
		if i%2 == 0 {
			p.Manifest.Spec.Template.Spec.Taints = append(p.Manifest.Spec.Template.Spec.Taints, mt)
		} else {
			p.Manifest.Spec.Template.Spec.StartupTaints = append(p.Manifest.Spec.Template.Spec.StartupTaints, mt)
		}
	}
	ds := split(durations)
	at := func(i int) string {
		if i < len(ds) {
			return ds[i]
		}
		return ""
	}
	p.Manifest.Spec.Template.Spec.ExpireAfter = at(0)
	p.Manifest.Spec.Template.Spec.TerminationGracePeriod = at(1)
	if flags&1 != 0 {
		ca := at(2)
		d := &manifest.Disruption{ConsolidationPolicy: at(3), ConsolidateAfter: &ca}
		if flags&2 != 0 {
			d.ConsolidateAfter = nil
		}
		for i := 4; i+2 < len(ds); i += 3 {
			s, du := ds[i+1], ds[i+2]
			b := manifest.Budget{Nodes: ds[i], Reasons: strings.Split(s, ",")}
			if s != "" {
				b.Schedule = &s
			}
			if du != "" {
				b.Duration = &du
			}
			d.Budgets = append(d.Budgets, b)
		}
		p.Manifest.Spec.Disruption = d
	}
	lim := map[string]string{}
	ll := split(limits)
	for i := 0; i+1 < len(ll); i += 2 {
		lim[ll[i]] = ll[i+1]
	}
	p.Manifest.Spec.Limits = lim
	if flags&4 != 0 {
		w := int32(weight)
		p.Manifest.Spec.Weight = &w
	}
	if flags&8 != 0 {
		p.Manifest.Spec.Replicas = &replicas
	}
	// Unknown and empty markers on a few paths, chosen by the flags.
	marks := []rules.Path{pathName, pathLabels, pathRequirements.Index(0).Attr("values"), pathTaints.Index(0).Attr("effect"),
		pathStartupTaints, pathExpireAfter, pathConsolidateAfter, pathBudgets.Index(0).Attr("schedule"), pathLimits, pathWeight,
		pathReplicas, pathNodeClass.Attr("amis")}
	for i, m := range marks {
		if flags&(1<<(4+i%12)) != 0 && i%3 == int(flags%3) {
			p.Unknown.Add(m)
		}
	}
	if flags&0x100 != 0 {
		p.Empty.Add(pathTaints.Index(0).Attr("value"))
		p.Empty.Add(pathConsolidationPolicy)
	}
	p.Class = ClassFacts{Known: flags&0x200 != 0, Family: amifamily.Family(family), UserData: labels,
		RegisteredTaints: []taints.Taint{{Key: name, Effect: family}}}
	if flags&0x400 != 0 {
		p.Class.AMIs = []ami.AMI{
			{ID: "ami-1", Architecture: "amd64", Variant: amifamily.Standard, Requirements: []ami.Requirement{{Key: ami.LabelArch, Operator: "In", Values: []string{"amd64"}}}},
			{ID: "ami-2", Architecture: family, Requirements: []ami.Requirement{{Key: ami.LabelGPUCount, Operator: family}}},
		}
	}
	return p
}

// FuzzValidate: Validate, Check and PreviewFor never panic, whatever the pool.
func FuzzValidate(f *testing.F) {
	f.Add("default", "example.com/team|a|karpenter.sh/nodepool|x", "karpenter.k8s.aws/instance-family In g5g,m5|kubernetes.io/arch Gt 1", "example.com/a=b/c:NoSchedule|example.com/a=:NoSchedule",
		"720h|Never|5m|Balanced|10%|0 9 * * *|8h", "cpu|1000|memroy|-1", "AL2", int64(0), int64(3), uint16(0xffff))
	f.Add("GPU_Pool", "", "karpenter.sh/capacity-type In spot x", "", "30d|1.5h|never|WhenUnderutilized|101%|@dailyx|30s", "cpu|1 000", "Windows2022", int64(101), int64(-1), uint16(0x60f))
	f.Add("", "a|b|c", " | In ||| Gte -1 ", ":::|=", "|||||", "|", "Custom", int64(1), int64(0), uint16(0x2f3))
	f.Add(strings.Repeat("a", 300), "k8s.io/x|y", "node.kubernetes.io/instance-type In g5g.medium", "karpenter.sh/unregistered=:NoExecute", "", "nvidia.com/gpu|8", "AL2023", int64(5), int64(2), uint16(0x7fd))
	f.Fuzz(func(t *testing.T, name, labels, reqs, tnts, durations, limits, family string, weight, replicas int64, flags uint16) {
		p := fuzzPool(name, labels, reqs, tnts, durations, limits, family, weight, replicas, flags)
		v := versions.Karpenter{Minor: int(flags % 15), Patch: int(flags%5) - 1}
		for _, fd := range Validate(p, v) {
			if fd.Rule == nil || fd.Detail == "" {
				t.Fatalf("malformed finding %+v", fd)
			}
		}
		r := Check(p, instancetype.Embedded(), v)
		_, _ = previewText(p, r, demoFacts, v)
		_, _ = renderYAML(p)
	})
}
