package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// Markdown renders the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "Measured %s on %d CPUs (%s), %s RAM, load average %s at the start; %s, Terraform %s",
		m.Date, m.CPUs, m.CPUModel, m.MemTotal, m.LoadAvg, m.Go, m.Terraform)
	if r.AWS != "" {
		fmt.Fprintf(&b, ", hashicorp/aws %s", r.AWS)
	}
	b.WriteString(".")
	if n := r.Options.Note; n != "" {
		b.WriteString(" " + n)
	}
	if len(r.Cells) > 0 {
		fmt.Fprintf(&b, "\n`go run ./internal/cmd/bench -n %s -runs %d`: `terraform plan -input=false` (default -parallelism=10) of N EC2NodeClasses + N NodePools, %d runs per row (the stacks of a row take turns, one plan each per round), against the in-process emulator on loopback (1 ms per answer). "+
			"Variant A: every class on one alias; B: a distinct selector per class (even classes a name, odd ones an SSM parameter). "+
			"\"CPU, all processes\" is the user+system time of terraform and every plugin it waited for (a figure less sensitive to the machine's load than wall time); \"plugin\" columns are the provider processes alone (peak RSS of the largest, CPU summed over the starts).\n\n",
			joinInts(r.Options.Sizes), r.Options.Runs, r.Options.Runs)
	} else {
		b.WriteString("\n")
	}
	if len(r.Cells) > 0 {
		b.WriteString("\"× time_static CPU\" is the median of the rounds' ratios (each round plans every stack of the row once, one after the other, so a change of the machine's load weighs on both plans of a pair alike).")
		if r.Options.Compare != "" {
			b.WriteString(" The karpenter-compare row is `-compare` " + r.Options.CompareLabel + ", measured in the same rounds.")
		}
		b.WriteString("\n\n")
	}
	if r.AWSAbsent != "" {
		fmt.Fprintf(&b, "Conventional stack skipped: %s.\n\n", r.AWSAbsent)
	}
	if r.TimeAbsent != "" && len(r.Cells) > 0 {
		fmt.Fprintf(&b, "time_static peer row (hashicorp/time %s) skipped: %s.\n\n", timeVersion, r.TimeAbsent)
	}
	if r.RealisticAbsent != "" {
		fmt.Fprintf(&b, "Variant R skipped: %s.\n\n", r.RealisticAbsent)
	}
	if n, ok := r.CatalogueTypes[VariantR]; ok && len(r.Cells) > 0 {
		fixtures := ""
		if a, ok := r.CatalogueTypes[VariantA]; ok {
			fixtures = fmt.Sprintf(" instead of the fixtures' %d", a)
		}
		fmt.Fprintf(&b, "Variant R: variant A's fleet against an emulator serving %d instance types (../shared/data/instance-types.csv; %d DescribeInstanceTypes pages of 100)%s. "+
			"The time_static row is hashicorp/time %s (a terraform-plugin-framework provider with a trivial schema and no remote calls: the floor of any framework provider), built with go install through the module proxy.\n\n",
			n, pages(n), fixtures, timeVersion)
	}

	if len(r.Cells) > 0 {
		b.WriteString("| variant | N | stack | resources | plan median | min – max | × terraform_data | × time_static | CPU, all processes | × time_static CPU | plugin peak RSS | plugin CPU | plugin starts | AWS requests | per action |\n")
		b.WriteString("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	}
	for _, c := range r.Cells {
		base := r.find(c.Variant, c.N, StackBaseline)
		ratio, peer, peerCPU := "–", "–", "–"
		if base != nil && c.Stack != StackBaseline {
			ratio = fmt.Sprintf("%.1f×", float64(c.Median())/float64(base.Median()))
		}
		if t := r.find(c.Variant, c.N, StackTime); t != nil && c.Stack != StackBaseline && c.Stack != StackTime {
			peer = fmt.Sprintf("%.1f×", float64(c.Median())/float64(t.Median()))
			if ratio, ok := pairedCPURatio(&c, t); ok {
				peerCPU = fmt.Sprintf("%.2f×", ratio)
			}
		}
		rss, cpu, starts := "–", "–", "–"
		if c.PluginStarts > 0 {
			rss = fmt.Sprintf("%.0f MiB", float64(c.PeakRSSKB)/1024)
			cpu = seconds(c.PluginCPU)
			starts = fmt.Sprint(c.PluginStarts)
		}
		total, actions := "–", "–"
		if c.Stack != StackBaseline && c.Stack != StackTime {
			total = fmt.Sprint(c.Requests["total"])
			actions = perAction(c.Requests)
			if len(c.Varying) > 0 {
				actions += " (varied between runs: " + strings.Join(c.Varying, ", ") + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %s | %s – %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			c.Variant, c.N, c.Stack, c.Resources, seconds(c.Median()), seconds(minD(c.Walls)), seconds(maxD(c.Walls)),
			ratio, peer, seconds(c.TotalCPU), peerCPU, rss, cpu, starts, total, actions)
	}

	if r.AWS != "" {
		b.WriteString("\nThis provider against the conventional stack (aws_ssm_parameter + aws_ami per class, aws_ec2_instance_types per pool, terraform_data per manifest):\n\n")
		b.WriteString("| variant | N | plan time: karpenter / conventional | AWS requests: conventional / karpenter |\n|---|--:|--:|--:|\n")
		for _, c := range r.Cells {
			if c.Stack != StackKarpenter {
				continue
			}
			conv := r.find(c.Variant, c.N, StackConventional)
			if conv == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %.2f | %s (%d vs %d) |\n", c.Variant, c.N,
				float64(c.Median())/float64(conv.Median()),
				fewer(conv.Requests["total"], c.Requests["total"]), conv.Requests["total"], c.Requests["total"])
		}
	}

	if t := r.targets(); len(t) > 0 {
		b.WriteString("\nTargets (issue \"Performance and reliability\"), read off the tables above:\n\n| target | measured | met |\n|---|---|---|\n")
		for _, row := range t {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0], row[1], row[2])
		}
	}

	if t := r.costTargets(); len(t) > 0 {
		b.WriteString("\nTargets (issue \"Plan cost per resource close to the framework's floor, and one catalogue read per plan\"), read off the tables above and the Go benchmarks below (cpu-ns/op: the benchmark process's CPU time per operation, garbage collection included, which the machine's load inflates much less than ns/op):\n\n| target | measured | met |\n|---|---|---|\n")
		for _, row := range t {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0], row[1], row[2])
		}
	}

	if t := r.schedulingTargets(); len(t) > 0 {
		b.WriteString("\nTargets (issue \"Will the workloads land?\"), read off BenchmarkScheduling5000 below: 5,000 pods in 50 Deployments, 10 NodePools, the 1,363-type catalogue, the data source's engine and Karpenter's own NewTopology, NewScheduler and Solve on the same input, in turn in each iteration (CPU time, which the machine's load inflates much less than wall time):\n\n| target | measured | met |\n|---|---|---|\n")
		for _, row := range t {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0], row[1], row[2])
		}
	}

	if len(r.GoBench) > 0 {
		pkgs := r.Options.GoBenchPkgs
		if len(pkgs) == 0 {
			pkgs = []string{"./..."}
		}
		fmt.Fprintf(&b, "\nGo benchmarks (`go test -run '^$' -bench . -benchmem %s`, same run):\n\n```\n", strings.Join(pkgs, " "))
		for _, l := range r.GoBench {
			b.WriteString(l + "\n")
		}
		b.WriteString("```\n")
	}

	if len(r.Startup) > 0 {
		b.WriteString("\nProvider startup as Terraform does it (go-plugin client, AutoMTLS, gRPC): exec to ready (handshake read, connected) and to the schema answered (GetProviderSchema / GetSchema):\n\n")
		b.WriteString("| plugin | starts | ready median | schema median | schema max | schema size |\n|---|--:|--:|--:|--:|--:|\n")
		for _, n := range slices.Sorted(maps.Keys(r.Startup)) {
			ss := r.Startup[n]
			var ready, schema []time.Duration
			for _, s := range ss {
				ready = append(ready, s.Ready)
				schema = append(schema, s.Schema)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %d KiB |\n", n, len(ss), millis(median(ready)), millis(median(schema)), millis(maxD(schema)), ss[0].SchemaBytes/1024)
		}
	}
	return b.String()
}

// targets checks the targets against the cells that measure them;
// a target whose cell was not run is left out.
func (r *Report) targets() [][3]string {
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	var out [][3]string
	if c := r.find(VariantA, 60, StackKarpenter); c != nil {
		n := c.Requests["total"]
		out = append(out, [3]string{"AWS requests for 60 classes + 60 pools on one alias ≤ 15", fmt.Sprintf("%d (%s)", n, perAction(c.Requests)), yes(n <= 15)})
		if base := r.find(VariantA, 60, StackBaseline); base != nil {
			ratio := float64(c.Median()) / float64(base.Median())
			out = append(out, [3]string{"plan time for 120 resources ≤ 1.5× terraform_data", fmt.Sprintf("%.1f× (%s vs %s)", ratio, seconds(c.Median()), seconds(base.Median())), yes(ratio <= 1.5)})
		}
	}
	for _, v := range []Variant{VariantA, VariantB} {
		c, conv := r.find(v, 60, StackKarpenter), r.find(v, 60, StackConventional)
		if c == nil || conv == nil {
			continue
		}
		ratio := float64(conv.Requests["total"]) / float64(max(1, c.Requests["total"]))
		out = append(out, [3]string{fmt.Sprintf("≥ 5× fewer requests than the conventional stack (variant %s, N=60)", v),
			fmt.Sprintf("%s (%d vs %d)", fewer(conv.Requests["total"], c.Requests["total"]), conv.Requests["total"], c.Requests["total"]), yes(ratio >= 5)})
	}
	if ss := r.Startup["terraform-provider-karpenter"]; len(ss) > 0 {
		var schema []time.Duration
		for _, s := range ss {
			schema = append(schema, s.Schema)
		}
		m := median(schema)
		out = append(out, [3]string{"provider ready to serve (GetProviderSchema answered) < 150 ms", "median " + millis(m), yes(m < 150*time.Millisecond)})
	}
	return out
}

// costTargets checks the targets of the plan-cost issue against the cells
// and Go benchmarks that measure them.
func (r *Report) costTargets() [][3]string {
	var out [][3]string
	for _, bt := range []struct {
		name, label string
		cpu, bytes  float64 // limits: ns, B per operation
	}{
		{"BenchmarkProtocol/karpenter_nodepool/PlanResourceChange", "NodePool PlanResourceChange ≤ 5 ms CPU and ≤ 2 MB allocated", 5e6, 2e6},
		{"BenchmarkProtocol/karpenter_nodepool/ValidateResourceConfig", "NodePool ValidateResourceConfig ≤ 1 ms CPU", 1e6, 0},
		{"BenchmarkProtocol/karpenter_ec2nodeclass/PlanResourceChange", "EC2NodeClass PlanResourceChange ≤ 5 ms CPU and ≤ 2 MB allocated", 5e6, 2e6},
		{"BenchmarkProtocol/karpenter_ec2nodeclass/ValidateResourceConfig", "EC2NodeClass ValidateResourceConfig ≤ 1 ms CPU", 1e6, 0},
	} {
		m, ok := benchMetrics(r.GoBench, bt.name)
		if !ok {
			continue
		}
		cpu, hasCPU := m["cpu-ns/op"]
		if !hasCPU {
			cpu = m["ns/op"]
		}
		met := cpu <= bt.cpu
		measured := fmt.Sprintf("%.1f ms CPU", cpu/1e6)
		if !hasCPU {
			measured = fmt.Sprintf("%.1f ms (wall)", cpu/1e6)
		}
		if bt.bytes > 0 {
			met = met && m["B/op"] <= bt.bytes
			measured += fmt.Sprintf(", %.1f MB", m["B/op"]/1e6)
		}
		out = append(out, [3]string{bt.label, measured, yesNo(met)})
	}
	for _, v := range []Variant{VariantA, VariantR} {
		for _, s := range []Stack{StackKarpenter, StackCompare} {
			c, t := r.find(v, 60, s), r.find(v, 60, StackTime)
			if c == nil || t == nil {
				continue
			}
			cpu, ok := pairedCPURatio(c, t)
			if !ok {
				continue
			}
			label := fmt.Sprintf("CPU of the plan of 60 classes + 60 pools ≤ 1.5× that of 120 time_static (variant %s, median of the rounds' ratios)", v)
			if s == StackCompare {
				label = "the same, -compare's binary (" + r.Options.CompareLabel + ")"
			}
			out = append(out, [3]string{label,
				fmt.Sprintf("%.2f× (%s vs %s CPU; wall %.1f×)", cpu, seconds(c.TotalCPU), seconds(t.TotalCPU), float64(c.Median())/float64(t.Median())), yesNo(cpu <= 1.5)})
		}
	}
	if n, ok := r.CatalogueTypes[VariantR]; ok {
		for _, size := range r.Options.Sizes {
			c, a := r.find(VariantR, size, StackKarpenter), r.find(VariantA, size, StackKarpenter)
			if c == nil {
				continue
			}
			// One full read (its pages) and, for every other action, no
			// more calls than the same fleet makes on the small catalogue
			// (one per distinct query there).
			met := c.Requests["ec2:DescribeInstanceTypes"] <= pages(n)
			var extra []string
			for k, got := range c.Requests {
				if k == "total" || k == "throttled" || k == "ec2:DescribeInstanceTypes" || a == nil {
					continue
				}
				if got > a.Requests[k] {
					met = false
					extra = append(extra, fmt.Sprintf("%s %d against %d on the small catalogue", k, got, a.Requests[k]))
				}
			}
			sort.Strings(extra)
			measured := fmt.Sprintf("%d (%s)", c.Requests["total"], perAction(c.Requests))
			if len(extra) > 0 {
				measured += "; more than one per distinct query: " + strings.Join(extra, ", ")
			}
			if len(c.Varying) > 0 {
				measured += "; varied between runs: " + strings.Join(c.Varying, ", ")
			}
			out = append(out, [3]string{fmt.Sprintf("AWS requests of N=%d with a %d-type catalogue: ≤ one full read (%d pages) + one per other distinct query", size, n, pages(n)),
				measured, yesNo(met)})
		}
	}
	return out
}

// schedulingTargets compares the scheduling engine with Karpenter's own
// Solve (BenchmarkScheduling5000's two halves).
func (r *Report) schedulingTargets() [][3]string {
	m, ok := benchMetrics(r.GoBench, "BenchmarkScheduling5000")
	if !ok || m["solve-cpu-s"] == 0 {
		return nil
	}
	out := [][3]string{
		{"engine ≤ 1.2× Karpenter's own Solve", fmt.Sprintf("%.2f× CPU (%.1f s vs %.1f s), %.2f× wall", m["cpu-ratio"],
			m["engine-cpu-s"], m["solve-cpu-s"], m["wall-ratio"]), yesNo(m["cpu-ratio"] <= 1.2)},
		{"≥ 1,000 pods/s", fmt.Sprintf("engine %.0f pods/s wall, %.0f per CPU second; Karpenter's Solve %.0f, %.0f",
			m["engine-pods/s"], m["engine-pods/cpu-s"], m["solve-pods/s"], m["solve-pods/cpu-s"]), yesNo(m["engine-pods/s"] >= 1000)},
		{"memory", fmt.Sprintf("engine %.0f MB allocated per decision, Karpenter's Solve %.0f MB", m["engine-MB"], m["solve-MB"]), "–"},
	}
	if n, ok := benchMetrics(r.GoBench, "BenchmarkScheduling5000Narrow"); ok {
		out = append(out, [3]string{"the same pods, every pool pinned to a few families", fmt.Sprintf(
			"engine %.0f pods/s wall (%.2f× Karpenter's Solve CPU, %.0f pods/s)", n["engine-pods/s"], n["cpu-ratio"], n["solve-pods/s"]), "–"})
	}
	return out
}

// benchMetrics finds a Go benchmark's result line (the -N CPU suffix and
// trailing spaces ignored) and returns its metrics by unit.
func benchMetrics(lines []string, name string) (map[string]float64, bool) {
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 4 {
			continue
		}
		n := f[0]
		if i := strings.LastIndex(n, "-"); i > 0 {
			n = n[:i]
		}
		if n != name {
			continue
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			var v float64
			if _, err := fmt.Sscan(f[i], &v); err == nil {
				m[f[i+1]] = v
			}
		}
		return m, true
	}
	return nil, false
}

func pages(types int) int { return (types + 99) / 100 }

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// fewer says how many times fewer requests ours made than theirs, or more.
func fewer(theirs, ours int) string {
	if ours <= theirs {
		return fmt.Sprintf("%.1f× fewer", float64(theirs)/float64(max(1, ours)))
	}
	return fmt.Sprintf("%.1f× more", float64(ours)/float64(max(1, theirs)))
}

// pairedCPURatio is the median over the rounds of c's CPU (all processes)
// over t's in the same round: the plans of a round ran one after the
// other, so the pair shares the machine's load of the moment.
func pairedCPURatio(c, t *Cell) (float64, bool) {
	n := min(len(c.totalCPUs), len(t.totalCPUs))
	if n == 0 {
		return 0, false
	}
	ratios := make([]float64, 0, n)
	for i := range n {
		if t.totalCPUs[i] > 0 {
			ratios = append(ratios, float64(c.totalCPUs[i])/float64(t.totalCPUs[i]))
		}
	}
	if len(ratios) == 0 {
		return 0, false
	}
	slices.Sort(ratios)
	if len(ratios)%2 == 1 {
		return ratios[len(ratios)/2], true
	}
	return (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2, true
}

func (r *Report) find(v Variant, n int, s Stack) *Cell {
	for i := range r.Cells {
		if c := &r.Cells[i]; c.Variant == v && c.N == n && c.Stack == s {
			return c
		}
	}
	return nil
}

func perAction(st map[string]int) string {
	var keys []string
	for k := range st {
		if k != "total" && k != "throttled" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, st[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func millis(d time.Duration) string {
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func minD(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = min(m, d)
	}
	return m
}

func maxD(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
