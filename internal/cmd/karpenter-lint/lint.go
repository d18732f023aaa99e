package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

const lintUsage = `Usage: karpenter-lint lint [flags] [PATH|-]...

Checks every EC2NodeClass, NodePool and NodeOverlay document of the files, of the *.yaml, *.yml and *.json files under the
directories (recursively, hidden directories skipped), and of standard input (-): helm template ... | karpenter-lint lint -
The inputs are checked together, so a NodePool is cross-checked with its EC2NodeClass in another file.

Flags (also keys of the configuration file, .karpenter-lint.yaml in the working directory by default):
`

// runLint is the lint command.
func runLint(e *env, args []string) int {
	var flags options
	var configPath string
	var outputs outputList
	o, paths, loaded, code, ok := parseSettings(e, lintFlags(&flags, &configPath, &outputs), lintUsage, &flags, &outputs, &configPath, args)
	if !ok {
		return code
	}
	if len(paths) > 0 {
		o.Paths = paths
	}
	kv, failLevel, err := check(o)
	if err != nil {
		if loaded != "" {
			err = fmt.Errorf("%w (flags and %s)", err, loaded)
		}
		return e.errorf("%v", err)
	}
	if len(o.Paths) == 0 {
		return e.errorf("nothing to check: give files, directories or - (standard input), or paths in %s", defaultConfig)
	}
	inputs, err := readInputs(e.stdin, o.Paths)
	if err != nil {
		return e.errorf("%v", err)
	}
	checked := len(inputs)
	if inputs, err = withClasses(inputs, o.ClassesFrom); err != nil {
		return e.errorf("classes-from: %v", err)
	}
	gates, err := nodeoverlay.ParseFeatureGates(o.FeatureGates)
	if err != nil {
		return e.errorf("%v", err)
	}
	opt := manifestcheck.Options{Karpenter: kv, Kubernetes: o.KubernetesVersion, Cluster: o.Cluster,
		FeatureGates: gates, GateHow: nodeoverlay.GateHow(nodeoverlay.FrontEndCLI)}
	if o.Region != "" || o.Profile != "" {
		opt.AWS = awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: o.Region, Profile: o.Profile, MaxRetries: -1}))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res := manifestcheck.Run(ctx, inputs, opt)
	if o.ClusterState != "" {
		state, err := readInputs(e.stdin, []string{o.ClusterState})
		if err != nil || len(state) != 1 {
			return e.errorf("cluster-state: %v", cmpErr(err, "give one file, the List kubectl prints"))
		}
		snap := snapshot.Parse(state[0].Text)
		for _, f := range snap.Findings {
			res.Skipped = append(res.Skipped, "cluster-state: "+f.String())
		}
		res.Findings = append(res.Findings, clusterDrift(inputs, snap, kv, res.Documents)...)
	}
	o.KarpenterVersion = kv.String()
	exit := writeReport(e, o, newReport(res, checked, o, failLevel))
	if o.RequireCrossChecks && len(res.Uncrossed) > 0 && exit != exitCannot {
		// A hook that passes hides what it printed: fail so the note is read.
		return e.errorf("require-cross-checks: no input defines EC2NodeClass \"%s\" exactly once, so the NodePools naming it were not cross-checked with it "+
			"(architectures and GPUs against its family and images, Custom userData taints). Give the file that defines it, or --classes-from a directory holding it.",
			strings.Join(res.Uncrossed, `", "`))
	}
	return exit
}

// withClasses adds the files of paths that are not among inputs as
// context inputs: read for the classes the inputs' NodePools name only.
func withClasses(inputs []manifestcheck.Input, paths []string) ([]manifestcheck.Input, error) {
	if len(paths) == 0 {
		return inputs, nil
	}
	extra, err := readInputs(strings.NewReader(""), slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == "-" }))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, in := range inputs {
		seen[in.Name] = true
	}
	for _, in := range extra {
		if !seen[in.Name] {
			in.Context = true
			inputs = append(inputs, in)
		}
	}
	return inputs, nil
}

// parseSettings parses a command's flags (fs declares them into flags,
// outputs and configPath) and lays them over the configuration file; paths
// are the arguments that are not flags. ok is false when the command ends
// there, with code (help, or a flag or configuration it cannot use).
func parseSettings(e *env, fs *flag.FlagSet, usage string, flags *options, outputs *outputList, configPath *string, args []string) (
	o options, paths []string, loaded string, code int, ok bool) {
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(e.stderr)
		_, _ = io.WriteString(e.stderr, usage+b.String()+
			"\nExit status: 0 nothing at or above --fail-level, 1 the command could not run, 2 findings at or above --fail-level.\n")
	}
	paths, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return o, nil, "", exitOK, false
	}
	if err != nil {
		return o, nil, "", exitCannot, false // the flag package printed the problem and the usage
	}
	flags.Outputs = list(*outputs)
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	file, loaded, err := loadConfig(*configPath)
	if err != nil {
		return o, nil, "", e.errorf("%v", err), false
	}
	return merge(file, *flags, set), paths, loaded, 0, true
}

// writeReport writes r in every format asked for, and the summary to
// stderr when no text goes to stdout; it returns the exit status.
func writeReport(e *env, o options, r report) int {
	textOnStdout := false
	for i, format := range o.Formats {
		out := "-"
		if i < len(o.Outputs) {
			out = o.Outputs[i]
		}
		if out == "-" {
			textOnStdout = textOnStdout || format == "text"
			if err := formats[format](e.stdout, r); err != nil {
				return e.errorf("writing the %s output: %v", format, err)
			}
			continue
		}
		if err := writeFile(out, format, r); err != nil {
			return e.errorf("%v", err)
		}
	}
	if !textOnStdout {
		// CI logs show what was checked and what was not.
		if _, err := io.WriteString(e.stderr, strings.Join(r.summary(), "\n")+"\n"); err != nil {
			return exitCannot
		}
	}
	return r.exitCode()
}

func writeFile(name, format string, r report) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("writing the %s output: %w", format, err)
	}
	if err := formats[format](f, r); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing the %s output to %s: %w", format, name, err)
	}
	return f.Close()
}

// check validates the settings that are not free text.
func check(o options) (versions.Karpenter, rules.Severity, error) {
	kv := versions.DefaultKarpenter
	if o.KarpenterVersion != "" {
		var err error
		if kv, err = versions.ParseKarpenter(o.KarpenterVersion); err != nil {
			return kv, 0, fmt.Errorf("karpenter-version: %v", err)
		}
	}
	var failLevel rules.Severity
	switch o.FailLevel {
	case "error":
		failLevel = rules.Error
	case "warning":
		failLevel = rules.Warning
	default:
		return kv, 0, fmt.Errorf("fail-level %q: want error or warning", o.FailLevel)
	}
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	for _, f := range o.Formats {
		if formats[f] == nil {
			return kv, 0, fmt.Errorf("format %q%s: want one of text, compact, json, sarif, junit, github", f, suggest.Hint(f, names))
		}
	}
	if len(o.Outputs) > len(o.Formats) {
		return kv, 0, fmt.Errorf("%d outputs for %d formats: each output goes with the format at the same position", len(o.Outputs), len(o.Formats))
	}
	ids := rules.IDs()
	for _, id := range append(append(list{}, o.Enable...), o.Disable...) {
		if rules.Lookup(id) == nil {
			return kv, 0, fmt.Errorf("no rule %q%s (karpenter-lint rules list)", id, suggest.Hint(id, ids))
		}
	}
	if o.Region == "" && o.Profile == "" && (o.KubernetesVersion != "" || o.Cluster != "") {
		return kv, 0, errors.New("kubernetes-version and cluster are for the checks that need AWS: give --region or --profile too")
	}
	if o.KubernetesVersion != "" {
		if _, err := versions.ParseKubernetes(o.KubernetesVersion); err != nil {
			return kv, 0, fmt.Errorf("kubernetes-version: %v", err)
		}
	}
	return kv, failLevel, nil
}
