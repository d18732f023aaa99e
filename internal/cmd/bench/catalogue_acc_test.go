package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype/realistic"
)

// A terraform plan of N classes + N pools on one alias, against an emulator
// serving a region-sized catalogue (~1,360 types: 14 pages), reads the
// catalogue once in the whole plan (three provider processes: validation,
// plan, schemas) and asks every other question once, at N = 60 and at
// N = 200. Counted by the emulator. Builds the provider and runs terraform:
// TF_ACC=1 only.
func TestAccPlanReadsTheCatalogueOnce(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC=1 runs terraform plan (builds the provider; about a minute)")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform is not on PATH (scripts/require-terraform.sh installs one)")
	}
	if _, err := realistic.Dir(); errors.Is(err, realistic.ErrNoData) {
		t.Skip(err)
	}
	rep, err := Run(context.Background(), Options{Sizes: []int{60, 200}, Variants: []Variant{VariantR}, Runs: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	pages := pages(rep.CatalogueTypes[VariantR])
	if pages < 14 {
		t.Fatalf("the emulator served %d types, want a region-sized catalogue", rep.CatalogueTypes[VariantR])
	}
	for _, n := range []int{60, 200} {
		c := rep.find(VariantR, n, StackKarpenter)
		if c == nil {
			t.Fatalf("no cell for N=%d", n)
		}
		for k, got := range c.Requests {
			want := 1 // one alias, one set of selectors, one role: one query each
			switch k {
			case "total", "throttled":
				continue
			case "ec2:DescribeInstanceTypes":
				want = pages
			}
			if got > want {
				t.Errorf("N=%d: %s %d, want at most %d (%v)", n, k, got, want, perAction(c.Requests))
			}
		}
		if c.Requests["ec2:DescribeInstanceTypes"] == 0 {
			t.Errorf("N=%d: the catalogue was not read at all: %v", n, perAction(c.Requests))
		}
	}
}
