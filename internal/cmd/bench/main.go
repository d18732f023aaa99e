// Command bench measures `terraform plan` of Karpenter fleets with this
// provider against the project's AWS emulator, next to a terraform_data
// baseline and, when the hashicorp/aws provider is in a local plugin
// directory, the conventional aws_ssm_parameter + aws_ami stack; and the
// provider's startup (exec to schema served). It prints a Markdown report
// and, with -out, writes it into a file between the markers
// "<!-- bench:plan:begin -->" and "<!-- bench:plan:end -->" (the whole
// file when it has none).
//
//	go run ./internal/cmd/bench -n 1,10,60,200 -runs 5 -out BENCHMARKS.md
//
// Needs Go and terraform on PATH; nothing leaves the machine: the emulator
// runs in this process on loopback, the provider is built once and used
// through a dev_overrides CLI configuration (no terraform init).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if wrapped := os.Getenv(envWrapReal); wrapped != "" {
		wrapMain(wrapped, os.Getenv(envWrapOut))
		return
	}
	var o Options
	var sizes, variants, benchPkgs string
	flag.StringVar(&sizes, "n", "1,10,60,200", "fleet sizes: N classes + N pools each")
	flag.StringVar(&variants, "variants", "A,B,R", "A: one alias for all classes; B: a distinct selector per class; R: A against a region-sized instance-type catalogue (../shared/data, skipped when absent)")
	flag.IntVar(&o.Runs, "runs", 5, "timed plans per cell")
	flag.IntVar(&o.StartupRuns, "startup-runs", 20, "provider starts for the startup figure (0: skip)")
	flag.StringVar(&o.PluginDir, "plugin-dir", "/opt/tf-plugins", "local plugin directory (filesystem mirror layout) searched for hashicorp/aws; empty skips the conventional stack")
	flag.StringVar(&o.Out, "out", "", "write the report into this Markdown file (between the bench markers)")
	flag.BoolVar(&o.Keep, "keep", false, "keep the work directory")
	flag.StringVar(&o.Note, "note", "", "a line added under the machine description (e.g. \"machine shared with other jobs\")")
	flag.BoolVar(&o.GoBench, "gobench", false, "run the Go benchmarks (go test -bench . -benchmem ./...) first and add them to the report")
	flag.StringVar(&benchPkgs, "gobench-pkgs", "./...", "comma-separated packages whose Go benchmarks -gobench runs (e.g. ./internal/provider,./internal/crd on a shared machine)")
	flag.BoolVar(&o.NoPlan, "no-plan", false, "skip the terraform plan measurements")
	flag.StringVar(&o.TimeCache, "time-cache", defaultTimeCache(), "where hashicorp/time "+timeVersion+" is built (go install through the module proxy) for the time_static peer row; empty skips the row")
	flag.StringVar(&o.Provider, "provider", "", "measure this provider binary instead of building the working tree (e.g. an older build, for a before/after)")
	flag.StringVar(&o.Compare, "compare", "", "also measure this provider binary (e.g. a build of main, for a before/after) as the stack karpenter-compare, in the same rounds as the others")
	flag.StringVar(&o.CompareLabel, "compare-label", "", "what -compare's binary is, for the report (default: its path)")
	flag.Parse()
	if o.CompareLabel == "" {
		o.CompareLabel = o.Compare
	}
	for _, p := range strings.Split(benchPkgs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.GoBenchPkgs = append(o.GoBenchPkgs, p)
		}
	}
	var err error
	if o.Sizes, err = parseSizes(sizes); err != nil {
		fatal(err)
	}
	for _, v := range strings.Split(variants, ",") {
		switch Variant(strings.TrimSpace(v)) {
		case VariantA, VariantB, VariantR:
			o.Variants = append(o.Variants, Variant(strings.TrimSpace(v)))
		default:
			fatal(fmt.Errorf("-variants: unknown variant %q", v))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, o, os.Stderr)
	if err != nil {
		fatal(err)
	}
	md := rep.Markdown()
	fmt.Print(md)
	if o.Out != "" {
		if err := writeSection(o.Out, md); err != nil {
			fatal(err)
		}
		fmt.Fprintln(os.Stderr, "bench: wrote", o.Out)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-n: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

const (
	beginMarker = "<!-- bench:plan:begin -->"
	endMarker   = "<!-- bench:plan:end -->"
)

// writeSection replaces the text between the markers of path with md, or
// writes md (with the markers) as the whole file when it has none.
func writeSection(path, md string) error {
	section := beginMarker + "\n" + md + endMarker + "\n"
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if i < 0 || j < i {
		return os.WriteFile(path, []byte(section), 0o644)
	}
	s = s[:i] + section + strings.TrimPrefix(s[j+len(endMarker):], "\n")
	return os.WriteFile(path, []byte(s), 0o644)
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func since(t time.Time) string { return time.Since(t).Round(time.Millisecond).String() }
