package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

func TestConfigsParse(t *testing.T) {
	for _, s := range []Stack{StackKarpenter, StackBaseline, StackConventional, StackTime} {
		for _, v := range []Variant{VariantA, VariantB, VariantR} {
			src := Config(s, v, 3, "http://127.0.0.1:1")
			f, diags := hclsyntax.ParseConfig([]byte(src), "main.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatalf("%s/%s: %v\n%s", s, v, diags, src)
			}
			body := f.Body.(*hclsyntax.Body)
			resources := 0
			for _, b := range body.Blocks {
				if b.Type == "resource" {
					resources++
				}
			}
			if resources != 6 {
				t.Errorf("%s/%s: %d resources, want 2N = 6", s, v, resources)
			}
		}
	}
	// Variant B: a distinct selector per class, and fixtures behind each.
	b := Config(StackKarpenter, VariantB, 4, "http://x")
	for i := range 4 {
		if want := []string{benchImageName(i), benchParam(i)}[i%2]; strings.Count(b, want) != 1 {
			t.Errorf("class %d does not select %s once", i, want)
		}
	}
	f, err := BenchFixtures(4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, ok := f.Image(benchImageID(i)); !ok {
			t.Errorf("no image %s", benchImageID(i))
		}
		if p, ok := f.Parameter(benchParam(i)); !ok || *p.Value != benchImageID(i) {
			t.Errorf("parameter %s: %+v", benchParam(i), p)
		}
	}
}

func TestWriteSection(t *testing.T) {
	p := filepath.Join(t.TempDir(), "B.md")
	if err := writeSection(p, "one\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("# Title\n\nintro\n"+beginMarker+"\nold\n"+endMarker+"\n\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeSection(p, "new\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if want := "# Title\n\nintro\n" + beginMarker + "\nnew\n" + endMarker + "\n\nafter\n"; string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMedianAndSizes(t *testing.T) {
	if m := median([]time.Duration{5, 1, 3}); m != 3 {
		t.Errorf("median %d", m)
	}
	if m := median([]time.Duration{4, 1, 3, 2}); m != 2 {
		t.Errorf("median %d", m)
	}
	if ns, err := parseSizes("1, 10,60"); err != nil || len(ns) != 3 || ns[2] != 60 {
		t.Errorf("parseSizes: %v %v", ns, err)
	}
	if _, err := parseSizes("0"); err == nil {
		t.Error("0 accepted")
	}
}

// The targets are read off the cells that measure them: met or not, and a
// provider that makes more requests than the conventional stack says "more".
func TestTargets(t *testing.T) {
	sec := time.Second
	r := Report{Cells: []Cell{
		{Variant: VariantA, N: 60, Stack: StackBaseline, Walls: []time.Duration{sec}},
		{Variant: VariantA, N: 60, Stack: StackKarpenter, Walls: []time.Duration{3 * sec}, Requests: map[string]int{"total": 4, "ssm:GetParameters": 1, "ec2:DescribeImages": 3}},
		{Variant: VariantA, N: 60, Stack: StackConventional, Walls: []time.Duration{9 * sec}, Requests: map[string]int{"total": 240}},
		{Variant: VariantB, N: 60, Stack: StackKarpenter, Walls: []time.Duration{sec}, Requests: map[string]int{"total": 30}},
		{Variant: VariantB, N: 60, Stack: StackConventional, Walls: []time.Duration{sec}, Requests: map[string]int{"total": 20}},
	}, Startup: map[string][]StartupSample{"terraform-provider-karpenter": {{Schema: 120 * time.Millisecond}, {Schema: 200 * time.Millisecond}, {Schema: 130 * time.Millisecond}}}}
	reportHas(t, r.Markdown(),
		"| AWS requests for 60 classes + 60 pools on one alias ≤ 15 | 4 (ec2:DescribeImages 3, ssm:GetParameters 1) | yes |",
		"| plan time for 120 resources ≤ 1.5× terraform_data | 3.0× (3.00 s vs 1.00 s) | **no** |",
		"| ≥ 5× fewer requests than the conventional stack (variant A, N=60) | 60.0× fewer (240 vs 4) | yes |",
		"| ≥ 5× fewer requests than the conventional stack (variant B, N=60) | 1.5× more (20 vs 30) | **no** |",
		"| provider ready to serve (GetProviderSchema answered) < 150 ms | median 130 ms | yes |",
	)
}

// The plan-cost targets: the protocol benchmarks' CPU and bytes per
// operation, the plan against time_static, and the requests with a
// region-sized catalogue: its pages once, and no action more often than on
// the small catalogue.
func TestCostTargets(t *testing.T) {
	sec := time.Second
	small := map[string]int{"total": 4, "ec2:DescribeInstanceTypes": 1, "ec2:DescribeImages": 1, "ssm:GetParameters": 1, "eks:DescribeCluster": 1}
	r := Report{
		Options:        Options{Sizes: []int{60, 200}},
		CatalogueTypes: map[Variant]int{VariantA: 25, VariantR: 1363},
		Cells: []Cell{
			{Variant: VariantA, N: 60, Stack: StackTime, Walls: []time.Duration{2 * sec}, TotalCPU: sec, totalCPUs: []time.Duration{sec}},
			{Variant: VariantA, N: 60, Stack: StackKarpenter, Resources: 120, Walls: []time.Duration{3 * sec}, TotalCPU: 2 * sec, totalCPUs: []time.Duration{2 * sec}, Requests: small},
			{Variant: VariantA, N: 200, Stack: StackKarpenter, Walls: []time.Duration{3 * sec}, Requests: small},
			{Variant: VariantR, N: 60, Stack: StackKarpenter, Walls: []time.Duration{3 * sec},
				Requests: map[string]int{"total": 17, "ec2:DescribeInstanceTypes": 14, "ec2:DescribeImages": 1, "ssm:GetParameters": 1, "eks:DescribeCluster": 1}},
			{Variant: VariantR, N: 200, Stack: StackKarpenter, Walls: []time.Duration{3 * sec}, Varying: []string{"ec2:DescribeInstanceTypes"},
				Requests: map[string]int{"total": 32, "ec2:DescribeInstanceTypes": 28, "ec2:DescribeImages": 2, "ssm:GetParameters": 1, "eks:DescribeCluster": 1}},
		},
		GoBench: []string{
			"pkg: github.com/karpenter-tf/terraform-provider-karpenter/internal/provider",
			"BenchmarkProtocol/karpenter_nodepool/ValidateResourceConfig-2 \t 100 \t 7012656 ns/op \t 900000 cpu-ns/op \t 157.0 values \t 3856632 B/op \t 37177 allocs/op",
			"BenchmarkProtocol/karpenter_nodepool/PlanResourceChange-2 \t 40 \t 28401318 ns/op \t 4000000 cpu-ns/op \t 157.0 values \t 2100000 B/op \t 151840 allocs/op",
			"BenchmarkProtocol/karpenter_ec2nodeclass/PlanResourceChange-2 \t 40 \t 3000000 ns/op \t 1500000 B/op \t 151840 allocs/op",
		},
	}
	reportHas(t, r.Markdown(),
		"| NodePool PlanResourceChange ≤ 5 ms CPU and ≤ 2 MB allocated | 4.0 ms CPU, 2.1 MB | **no** |",
		"| NodePool ValidateResourceConfig ≤ 1 ms CPU | 0.9 ms CPU | yes |",
		"| EC2NodeClass PlanResourceChange ≤ 5 ms CPU and ≤ 2 MB allocated | 3.0 ms (wall), 1.5 MB | yes |",
		"| CPU of the plan of 60 classes + 60 pools ≤ 1.5× that of 120 time_static (variant A, median of the rounds' ratios) | 2.00× (2.00 s vs 1.00 s CPU; wall 1.5×) | **no** |",
		"| AWS requests of N=60 with a 1363-type catalogue: ≤ one full read (14 pages) + one per other distinct query | 17 (ec2:DescribeImages 1, ec2:DescribeInstanceTypes 14, eks:DescribeCluster 1, ssm:GetParameters 1) | yes |",
		"| AWS requests of N=200 with a 1363-type catalogue: ≤ one full read (14 pages) + one per other distinct query | 32 (ec2:DescribeImages 2, ec2:DescribeInstanceTypes 28, eks:DescribeCluster 1, ssm:GetParameters 1); more than one per distinct query: ec2:DescribeImages 2 against 1 on the small catalogue; varied between runs: ec2:DescribeInstanceTypes | **no** |",
		"| A | 60 | karpenter | 120 | 3.00 s | 3.00 s – 3.00 s | – | 1.5× | 2.00 s | 2.00× |",
	)
	if strings.Contains(r.Markdown(), "EC2NodeClass ValidateResourceConfig") {
		t.Error("a target without its benchmark line is reported")
	}
}

// The CPU ratio to time_static is the median of the rounds' pairs, not
// the ratio of the medians: a round whose load doubled both plans of the
// pair does not move it.
func TestPairedCPURatio(t *testing.T) {
	ms := time.Millisecond
	tm := &Cell{totalCPUs: []time.Duration{1000 * ms, 2000 * ms, 1000 * ms}}
	k := &Cell{totalCPUs: []time.Duration{1300 * ms, 2600 * ms, 1400 * ms}}
	if r, ok := pairedCPURatio(k, tm); !ok || r != 1.3 {
		t.Errorf("paired ratio %v %v, want 1.3", r, ok)
	}
	if _, ok := pairedCPURatio(k, &Cell{}); ok {
		t.Error("a ratio without pairs")
	}
}

func reportHas(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
