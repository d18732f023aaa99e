package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// Options select what Run measures.
type Options struct {
	Sizes       []int
	Variants    []Variant
	Runs        int
	StartupRuns int
	PluginDir   string
	Out         string
	Keep        bool
	Note        string
	GoBench     bool
	// GoBenchPkgs are the packages whose benchmarks -gobench runs.
	GoBenchPkgs []string
	NoPlan      bool
	Provider    string
	// Compare is a second provider binary measured as StackCompare;
	// CompareLabel names it in the report.
	Compare, CompareLabel string
	// TimeCache is where hashicorp/time is built (empty: no peer row).
	TimeCache string
}

// Cell is one (variant, N, stack) measurement.
type Cell struct {
	Variant   Variant
	N         int
	Stack     Stack
	Resources int
	Walls     []time.Duration
	// PeakRSSKB is the largest peak RSS of any plugin process in any run;
	// PluginStarts the plugin processes of one plan.
	PeakRSSKB    int64
	PluginStarts int
	PluginCPU    time.Duration // median CPU (user+sys) of the plugins of one plan
	// TotalCPU is the median CPU of terraform and every plugin it ran (the
	// terraform process's rusage includes the children it waited for): a
	// figure that depends less on the machine's load than wall time.
	TotalCPU time.Duration
	// Requests are the emulator's counters of the last run; Varying lists
	// counters that differed between runs.
	Requests map[string]int
	Varying  []string
	// pluginCPUs and totalCPUs are the runs' figures PluginCPU and
	// TotalCPU are the medians of.
	pluginCPUs, totalCPUs []time.Duration
}

// merge adds the runs of o, a later measurement of the same cell, to c.
func (c *Cell) merge(o Cell) {
	if len(c.Walls) == 0 {
		*c = o
		return
	}
	for k, v := range o.Requests {
		if c.Requests[k] != v && !slices.Contains(c.Varying, k) {
			c.Varying = append(c.Varying, k)
		}
	}
	for _, k := range o.Varying {
		if !slices.Contains(c.Varying, k) {
			c.Varying = append(c.Varying, k)
		}
	}
	sort.Strings(c.Varying)
	c.Requests = o.Requests
	c.Walls = append(c.Walls, o.Walls...)
	c.pluginCPUs = append(c.pluginCPUs, o.pluginCPUs...)
	c.totalCPUs = append(c.totalCPUs, o.totalCPUs...)
	c.PluginCPU, c.TotalCPU = median(c.pluginCPUs), median(c.totalCPUs)
	c.PeakRSSKB = max(c.PeakRSSKB, o.PeakRSSKB)
	c.PluginStarts = o.PluginStarts
}

// Median wall time.
func (c Cell) Median() time.Duration { return median(c.Walls) }

// Report is everything Run measured.
type Report struct {
	Machine   Machine
	Options   Options
	Cells     []Cell
	AWS       string // hashicorp/aws version used, "" when absent
	AWSAbsent string // why the conventional stack was skipped
	// TimeAbsent says why the time_static peer row was skipped;
	// RealisticAbsent why variant R was.
	TimeAbsent, RealisticAbsent string
	// CatalogueTypes is the number of instance types each variant's
	// emulator serves (DescribeInstanceTypes pages: 100 types each).
	CatalogueTypes map[Variant]int
	Startup        map[string][]StartupSample
	// GoBench is the output of the Go benchmarks: "pkg:" lines and results.
	GoBench []string
}

type env struct {
	root, work string
	bin        string // this program, the plugin wrapper
	realDir    string // real plugins by file name
	overDir    string // dev_overrides: wrappers by file name
	recDir     string // wrapper records
	tfEnv      []string
	// compareEnv is tfEnv with the CLI configuration and wrapper of
	// -compare's binary: dev_overrides maps a provider address to one
	// directory, so the second binary needs a configuration of its own.
	compareEnv []string
	emus       map[Variant]emulator
	log        io.Writer
}

// emulator is one in-process emulator on loopback.
type emulator struct {
	srv *awsemu.Server
	url string
}

// Run builds the provider, starts the emulator and measures.
func Run(ctx context.Context, o Options, log io.Writer) (*Report, error) {
	if o.Runs < 1 {
		return nil, errors.New("-runs must be at least 1")
	}
	rep := &Report{Options: o, Startup: map[string][]StartupSample{}, CatalogueTypes: map[Variant]int{}}
	var err error
	if rep.Machine, err = describeMachine(ctx); err != nil {
		return nil, err
	}
	e := &env{log: log, emus: map[Variant]emulator{}}
	if e.root, err = moduleRoot(); err != nil {
		return nil, err
	}
	if e.work, err = os.MkdirTemp("", "karpenter-bench-"); err != nil {
		return nil, err
	}
	if o.Keep {
		_, _ = fmt.Fprintln(log, "bench: work directory", e.work)
	} else {
		defer func() { _ = os.RemoveAll(e.work) }() // best effort: a temporary directory
	}
	if e.bin, err = os.Executable(); err != nil {
		return nil, err
	}
	if o.GoBench {
		if rep.GoBench, err = goBenchmarks(ctx, e.root, o.GoBenchPkgs, log); err != nil {
			return nil, err
		}
	}
	e.realDir, e.overDir, e.recDir = filepath.Join(e.work, "real"), filepath.Join(e.work, "override"), filepath.Join(e.work, "records")
	for _, d := range []string{e.realDir, e.overDir, e.recDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}

	if o.Provider != "" {
		abs, err := filepath.Abs(o.Provider)
		if err != nil {
			return nil, err
		}
		if err := os.Symlink(abs, filepath.Join(e.realDir, "terraform-provider-karpenter")); err != nil {
			return nil, err
		}
	} else {
		t := time.Now()
		_, _ = fmt.Fprintln(log, "bench: building the provider")
		build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(e.realDir, "terraform-provider-karpenter"), ".")
		build.Dir, build.Stdout, build.Stderr = e.root, log, log
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("go build: %w", err)
		}
		_, _ = fmt.Fprintln(log, "bench: built in", since(t))
	}
	providers := map[string]string{"karpenter-tf/karpenter": "terraform-provider-karpenter"}
	if awsBin, version, why := findAWSProvider(o.PluginDir); awsBin != "" {
		if err := os.Symlink(awsBin, filepath.Join(e.realDir, "terraform-provider-aws")); err != nil {
			return nil, err
		}
		providers["hashicorp/aws"] = "terraform-provider-aws"
		rep.AWS = version
	} else {
		rep.AWSAbsent = why
		_, _ = fmt.Fprintln(log, "bench: conventional stack skipped:", why)
	}
	if o.TimeCache != "" && !o.NoPlan {
		if bin, why := timeProvider(ctx, o.TimeCache, log); bin != "" {
			if err := os.Symlink(bin, filepath.Join(e.realDir, "terraform-provider-time")); err != nil {
				return nil, err
			}
			providers["hashicorp/time"] = "terraform-provider-time"
		} else {
			rep.TimeAbsent = why
			_, _ = fmt.Fprintln(log, "bench: time_static peer row skipped:", why)
		}
	} else if o.TimeCache == "" {
		rep.TimeAbsent = "no -time-cache given"
	}
	if e.tfEnv, err = e.cliEnv("", e.realDir, providers); err != nil {
		return nil, err
	}
	if o.Compare != "" {
		abs, err := filepath.Abs(o.Compare)
		if err != nil {
			return nil, err
		}
		realDir := filepath.Join(e.work, "real-compare")
		if err := os.MkdirAll(realDir, 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(abs, filepath.Join(realDir, "terraform-provider-karpenter")); err != nil {
			return nil, err
		}
		if e.compareEnv, err = e.cliEnv("compare", realDir, map[string]string{"karpenter-tf/karpenter": "terraform-provider-karpenter"}); err != nil {
			return nil, err
		}
	}

	maxN := 0
	for _, n := range o.Sizes {
		maxN = max(maxN, n)
	}
	fixtures, err := BenchFixtures(maxN)
	if err != nil {
		return nil, err
	}
	var variants []Variant
	for _, v := range o.Variants {
		f := fixtures
		if v == VariantR {
			if f, err = realisticFixtures(maxN); err != nil {
				rep.RealisticAbsent = err.Error()
				_, _ = fmt.Fprintln(log, "bench: variant R skipped:", err)
				continue
			}
		}
		em, stop, err := startEmulator(f)
		if err != nil {
			return nil, err
		}
		defer stop()
		e.emus[v] = em
		rep.CatalogueTypes[v] = len(f.InstanceTypes)
		variants = append(variants, v)
	}
	o.Variants = variants

	stacks := []Stack{StackBaseline, StackKarpenter}
	if _, ok := providers["hashicorp/time"]; ok {
		stacks = []Stack{StackBaseline, StackTime, StackKarpenter}
	}
	if o.Compare != "" {
		stacks = append(stacks, StackCompare)
	}
	if rep.AWS != "" {
		stacks = append(stacks, StackConventional)
	}
	if o.NoPlan {
		stacks, o.Variants = nil, nil
	}
	// One untimed plan per stack: the first start of a 100 MB plugin reads
	// it from disk.
	for _, v := range o.Variants[:min(1, len(o.Variants))] {
		for _, s := range stacks {
			if _, err := e.plan(ctx, s, v, 1, 1); err != nil {
				return nil, err
			}
		}
	}
	for _, v := range o.Variants {
		for _, n := range o.Sizes {
			// The stacks take turns, one plan each per round, so a change
			// of the shared machine's load during a row weighs on every
			// stack of it alike and the ratios between them hold.
			cells := make([]Cell, len(stacks))
			took := make([]time.Duration, len(stacks))
			for range o.Runs {
				for i, s := range stacks {
					if v == VariantR && s == StackConventional {
						// Its aws_ec2_instance_types per pool would read the
						// whole catalogue per pool: variant A shows that shape.
						continue
					}
					t := time.Now()
					c, err := e.plan(ctx, s, v, n, 1)
					if err != nil {
						return nil, err
					}
					cells[i].merge(c)
					took[i] += time.Since(t)
				}
			}
			for i, c := range cells {
				if len(c.Walls) == 0 {
					continue
				}
				rep.Cells = append(rep.Cells, c)
				_, _ = fmt.Fprintf(log, "bench: %s N=%d %s: median %s (%s)\n", v, n, c.Stack, c.Median().Round(time.Millisecond), took[i].Round(time.Millisecond))
			}
		}
	}

	if o.StartupRuns > 0 {
		_, _ = fmt.Fprintln(log, "bench: provider startup")
		probes := []struct {
			name     string
			protocol int
			runs     int
		}{{"terraform-provider-karpenter", 6, o.StartupRuns}}
		if rep.AWS != "" {
			probes = append(probes, struct {
				name     string
				protocol int
				runs     int
			}{"terraform-provider-aws", 5, max(1, o.StartupRuns/4)})
		}
		for _, p := range probes {
			for range p.runs {
				cmd := exec.Command(filepath.Join(e.realDir, p.name))
				cmd.Env = cleanEnv()
				s, err := probeStartup(ctx, cmd, p.protocol)
				if err != nil {
					return nil, fmt.Errorf("startup of %s: %w", p.name, err)
				}
				rep.Startup[p.name] = append(rep.Startup[p.name], s)
			}
		}
	}
	return rep, nil
}

// cliEnv writes a CLI configuration whose dev_overrides serve providers
// (address: plugin file name) through this program's wrapper, which runs
// the real plugins of realDir, and returns terraform's environment for it.
// name tells configurations apart ("" for the main one).
func (e *env) cliEnv(name, realDir string, providers map[string]string) ([]string, error) {
	overDir, cliConfig := e.overDir, filepath.Join(e.work, "cli.tfrc")
	if name != "" {
		overDir, cliConfig = filepath.Join(e.work, "override-"+name), filepath.Join(e.work, "cli-"+name+".tfrc")
		if err := os.MkdirAll(overDir, 0o755); err != nil {
			return nil, err
		}
	}
	var tfrc strings.Builder
	tfrc.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, addr := range slices.Sorted(maps.Keys(providers)) {
		if err := os.Symlink(e.bin, filepath.Join(overDir, providers[addr])); err != nil {
			return nil, err
		}
		fmt.Fprintf(&tfrc, "    %q = %q\n", addr, overDir)
	}
	tfrc.WriteString("  }\n  direct {}\n}\n")
	if err := os.WriteFile(cliConfig, []byte(tfrc.String()), 0o644); err != nil {
		return nil, err
	}
	return append(cleanEnv(),
		"TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"AWS_ACCESS_KEY_ID=bench", "AWS_SECRET_ACCESS_KEY=bench", "AWS_EC2_METADATA_DISABLED=true",
		envWrapReal+"="+realDir, envWrapOut+"="+e.recDir), nil
}

// plan measures runs plans of one cell.
func (e *env) plan(ctx context.Context, s Stack, v Variant, n, runs int) (Cell, error) {
	c := Cell{Variant: v, N: n, Stack: s, Resources: 2 * n}
	dir := filepath.Join(e.work, fmt.Sprintf("%s-%s-%d", v, s, n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return c, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(Config(s, v, n, e.emus[v].url)), 0o644); err != nil {
		return c, err
	}
	var cpu, total []time.Duration
	for i := range runs {
		if _, err := readWrapRecords(e.recDir); err != nil { // leftovers
			return c, err
		}
		em := e.emus[v]
		em.srv.ResetStats()
		cmd := exec.CommandContext(ctx, "terraform", "plan", "-input=false", "-no-color")
		// The provider block names no IAM endpoint (the bench runs older
		// builds too, through -provider); the readiness checks' IAM reads
		// go to the emulator through the SDK's environment variable.
		tfEnv := e.tfEnv
		if s == StackCompare {
			tfEnv = e.compareEnv
		}
		cmd.Dir, cmd.Env = dir, append(slices.Clip(tfEnv), "AWS_ENDPOINT_URL_IAM="+em.url)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if err != nil {
			return c, fmt.Errorf("terraform plan (%s, N=%d, %s) failed: %w\n%s", v, n, s, err, tail(out.String(), 60))
		}
		// With -keep, what the last plan printed (its warnings, say) is
		// there to read next to its main.tf.
		if err := os.WriteFile(filepath.Join(dir, "plan.log"), out.Bytes(), 0o644); err != nil {
			return c, err
		}
		c.Walls = append(c.Walls, wall)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			total = append(total, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		}
		stats := em.srv.Stats()
		for _, k := range []string{"total", "throttled"} {
			if stats[k] == 0 {
				delete(stats, k)
			}
		}
		if i > 0 {
			for k, v := range stats {
				if c.Requests[k] != v && !slices.Contains(c.Varying, k) {
					c.Varying = append(c.Varying, k)
				}
			}
		}
		c.Requests = stats
		recs, err := readWrapRecords(e.recDir)
		if err != nil {
			return c, err
		}
		c.PluginStarts = len(recs)
		var used time.Duration
		for _, r := range recs {
			c.PeakRSSKB = max(c.PeakRSSKB, r.MaxRSSKB)
			used += r.User + r.Sys
		}
		cpu = append(cpu, used)
	}
	c.pluginCPUs, c.totalCPUs = cpu, total
	c.PluginCPU = median(cpu)
	c.TotalCPU = median(total)
	sort.Strings(c.Varying)
	return c, nil
}

// startEmulator serves f on a loopback port until stop.
func startEmulator(f *awsemu.Fixtures) (em emulator, stop func(), err error) {
	em.srv = awsemu.New(f, awsemu.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return em, nil, err
	}
	srv := &http.Server{Handler: em.srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	em.url = "http://" + ln.Addr().String()
	return em, func() { _ = srv.Close() }, nil
}

// goBenchmarks runs the Go benchmarks of pkgs (default ./...) and keeps
// the package lines and the results.
func goBenchmarks(ctx context.Context, root string, pkgs []string, log io.Writer) ([]string, error) {
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	args := append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem"}, pkgs...)
	_, _ = fmt.Fprintln(log, "bench: go", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Stderr = root, log
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go test -bench: %w\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "pkg: ") || strings.HasPrefix(l, "Benchmark") {
			lines = append(lines, strings.TrimRight(l, " \t"))
		}
	}
	return lines, nil
}

// findAWSProvider looks for hashicorp/aws in a filesystem-mirror layout.
func findAWSProvider(dir string) (bin, version, why string) {
	if dir == "" {
		return "", "", "no -plugin-dir given"
	}
	pattern := filepath.Join(dir, "registry.terraform.io", "hashicorp", "aws", "*", runtime.GOOS+"_"+runtime.GOARCH, "terraform-provider-aws_*")
	matches, _ := filepath.Glob(pattern)
	if len(matches) == 0 {
		return "", "", "hashicorp/aws not found in " + pattern
	}
	sort.Strings(matches)
	bin = matches[len(matches)-1]
	version = filepath.Base(filepath.Dir(filepath.Dir(bin)))
	return bin, version, ""
}

// cleanEnv is the environment without Terraform logging, CLI configuration
// and AWS settings, so the developer's setup does not skew the figures.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TF_") || strings.HasPrefix(k, "AWS_") || k == envWrapReal || k == envWrapOut {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

// Machine describes where the figures were taken.
type Machine struct {
	CPUs      int
	CPUModel  string
	MemTotal  string
	Go        string
	Terraform string
	Date      string
	LoadAvg   string
}

func describeMachine(ctx context.Context) (Machine, error) {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), Date: time.Now().UTC().Format("2006-01-02 15:04 MST")}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
				var kb int64
				_, _ = fmt.Sscan(f[1], &kb) // a malformed line leaves kb at 0
				m.MemTotal = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
			}
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	out, err := exec.CommandContext(ctx, "terraform", "version", "-json").Output()
	if err != nil {
		return m, fmt.Errorf("terraform version: %w (is terraform on PATH?)", err)
	}
	var tv struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &tv); err != nil {
		return m, fmt.Errorf("terraform version -json: %w", err)
	}
	m.Terraform = tv.Version
	return m, nil
}
