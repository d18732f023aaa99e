package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype/realistic"
)

// A terraform plan of N classes + N pools on one alias, against an emulator
// serving a region-sized catalogue (~1,360 types: 14 pages), reads the
// catalogue once in the whole plan (three provider processes: validation,
// plan, schemas) and asks every other question once, at N = 60 and at
// N = 200. Counted by the emulator. Runs terraform: TF_ACC=1 only.
//
// The provider is this test binary in plugin mode (TestMain), not a fresh
// `go build -trimpath` as the bench command makes: -trimpath changes every
// package's build ID, so on a cold build cache that build recompiled the
// whole dependency graph (five of a cold make test's thirteen minutes).
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
	rep, err := Run(context.Background(), Options{Sizes: []int{60, 200}, Variants: []Variant{VariantR}, Runs: 1, Provider: testBinaryPlugin(t)}, io.Discard)
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

// testBinaryPlugin writes an executable that runs this test binary as the
// provider plugin. The bench wrapper passes its own environment on to the
// plugin it runs, so the script drops the wrapper's variables (this binary
// would otherwise wrap itself) before setting plugin mode.
func testBinaryPlugin(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nunset %s %s\nKARPENTER_BENCH_TEST_PLUGIN=1 exec '%s' \"$@\"\n", envWrapReal, envWrapOut, self)
	path := filepath.Join(t.TempDir(), "terraform-provider-karpenter")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
