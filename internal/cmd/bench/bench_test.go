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
	for _, s := range []Stack{StackKarpenter, StackBaseline, StackConventional} {
		for _, v := range []Variant{VariantA, VariantB} {
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
	md := r.Markdown()
	for _, want := range []string{
		"| AWS requests for 60 classes + 60 pools on one alias ≤ 15 | 4 (ec2:DescribeImages 3, ssm:GetParameters 1) | yes |",
		"| plan time for 120 resources ≤ 1.5× terraform_data | 3.0× (3.00 s vs 1.00 s) | **no** |",
		"| ≥ 5× fewer requests than the conventional stack (variant A, N=60) | 60.0× fewer (240 vs 4) | yes |",
		"| ≥ 5× fewer requests than the conventional stack (variant B, N=60) | 1.5× more (20 vs 30) | **no** |",
		"| provider ready to serve (GetProviderSchema answered) < 150 ms | median 130 ms | yes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
