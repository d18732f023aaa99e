package main

import (
	"fmt"
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
		fmt.Fprintf(&b, "\n`go run ./internal/cmd/bench -n %s -runs %d`: `terraform plan -input=false` (default -parallelism=10) of N EC2NodeClasses + N NodePools, %d runs per row, against the in-process emulator on loopback (1 ms per answer). "+
			"Variant A: every class on one alias; B: a distinct selector per class (even classes a name, odd ones an SSM parameter). "+
			"\"CPU, all processes\" is the user+system time of terraform and every plugin it waited for (a figure less sensitive to the machine's load than wall time); \"plugin\" columns are the provider processes alone (peak RSS of the largest, CPU summed over the starts).\n\n",
			joinInts(r.Options.Sizes), r.Options.Runs, r.Options.Runs)
	} else {
		b.WriteString("\n")
	}
	if r.AWSAbsent != "" {
		fmt.Fprintf(&b, "Conventional stack skipped: %s.\n\n", r.AWSAbsent)
	}

	if len(r.Cells) > 0 {
		b.WriteString("| variant | N | stack | resources | plan median | min – max | × terraform_data | CPU, all processes | plugin peak RSS | plugin CPU | plugin starts | AWS requests | per action |\n")
		b.WriteString("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	}
	for _, c := range r.Cells {
		base := r.find(c.Variant, c.N, StackBaseline)
		ratio := "–"
		if base != nil && c.Stack != StackBaseline {
			ratio = fmt.Sprintf("%.1f×", float64(c.Median())/float64(base.Median()))
		}
		rss, cpu, starts := "–", "–", "–"
		if c.PluginStarts > 0 {
			rss = fmt.Sprintf("%.0f MiB", float64(c.PeakRSSKB)/1024)
			cpu = seconds(c.PluginCPU)
			starts = fmt.Sprint(c.PluginStarts)
		}
		total, actions := "–", "–"
		if c.Stack != StackBaseline {
			total = fmt.Sprint(c.Requests["total"])
			actions = perAction(c.Requests)
			if len(c.Varying) > 0 {
				actions += " (varied between runs: " + strings.Join(c.Varying, ", ") + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %s | %s – %s | %s | %s | %s | %s | %s | %s | %s |\n",
			c.Variant, c.N, c.Stack, c.Resources, seconds(c.Median()), seconds(minD(c.Walls)), seconds(maxD(c.Walls)),
			ratio, seconds(c.TotalCPU), rss, cpu, starts, total, actions)
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

	if len(r.GoBench) > 0 {
		b.WriteString("\nGo benchmarks (`go test -run '^$' -bench . -benchmem ./...`, same run):\n\n```\n")
		for _, l := range r.GoBench {
			b.WriteString(l + "\n")
		}
		b.WriteString("```\n")
	}

	if len(r.Startup) > 0 {
		b.WriteString("\nProvider startup as Terraform does it (go-plugin client, AutoMTLS, gRPC): exec to ready (handshake read, connected) and to the schema answered (GetProviderSchema / GetSchema):\n\n")
		b.WriteString("| plugin | starts | ready median | schema median | schema max | schema size |\n|---|--:|--:|--:|--:|--:|\n")
		names := make([]string, 0, len(r.Startup))
		for n := range r.Startup {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
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

// fewer says how many times fewer requests ours made than theirs, or more.
func fewer(theirs, ours int) string {
	if ours <= theirs {
		return fmt.Sprintf("%.1f× fewer", float64(theirs)/float64(max(1, ours)))
	}
	return fmt.Sprintf("%.1f× more", float64(ours)/float64(max(1, theirs)))
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
