package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

// defaultConfig is read from the working directory when --config is not
// given: CI jobs and pre-commit hooks run at the repository root.
const defaultConfig = ".karpenter-lint.yaml"

// options are the lint command's settings: its flags, and the same keys
// in the configuration file.
type options struct {
	Formats           list   `json:"format"`
	Outputs           list   `json:"output"`
	KarpenterVersion  string `json:"karpenter-version"`
	FailLevel         string `json:"fail-level"`
	Enable            list   `json:"enable"`
	Disable           list   `json:"disable"`
	Region            string `json:"region"`
	Profile           string `json:"profile"`
	KubernetesVersion string `json:"kubernetes-version"`
	Cluster           string `json:"cluster"`
	SourceRoot        string `json:"source-root"`
	FeatureGates      string `json:"feature-gates"`
	Paths             list   `json:"paths"`
	// ClassesFrom are read only for the EC2NodeClasses the checked
	// NodePools name; RequireCrossChecks fails the run when a NodePool's
	// class is found nowhere (the pre-commit hook's settings).
	ClassesFrom        list `json:"classes-from"`
	RequireCrossChecks bool `json:"require-cross-checks"`

	// The schedule command's.
	Pools              list     `json:"pools"`
	Workloads          list     `json:"workloads"`
	Baseline           list     `json:"baseline"`
	AllowUnschedulable list     `json:"allow-unschedulable"`
	VMMemoryOverhead   *float64 `json:"vm-memory-overhead-percent"`
	ReservedENIs       *int     `json:"reserved-enis"`
	ClusterState       string   `json:"cluster-state"`
}

// list is a repeatable flag whose values may also be comma-separated, and
// a configuration key written as a YAML list or a single string.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }

func (l *list) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func (l *list) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = list{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("want a string or a list of strings")
	}
	*l = many
	return nil
}

// outputList is --output: one value per --format, so commas are not
// separators (a file name may hold one).
type outputList []string

func (l *outputList) String() string     { return strings.Join(*l, ",") }
func (l *outputList) Set(v string) error { *l = append(*l, v); return nil }

// lintFlags declares the lint command's flags into o.
func lintFlags(o *options, configPath *string, outputs *outputList) *flag.FlagSet {
	fs := commonFlags("lint", o, configPath, outputs)
	fs.Var(&o.ClassesFrom, "classes-from", "files or directories (recursive) read only for the EC2NodeClasses the checked NodePools name, "+
		"so a pool is cross-checked with a class in a file that is not checked, e.g. . in a pre-commit hook (repeatable)")
	fs.BoolVar(&o.RequireCrossChecks, "require-cross-checks", false, "exit 1 when a NodePool's EC2NodeClass is in no input "+
		"(or in several), instead of noting that its cross-checks were not made")
	fs.StringVar(&o.ClusterState, "cluster-state", "", "the running cluster (the List `karpenter-lint snapshot` writes, or kubectl get "+
		"nodes,nodeclaims,pods,poddisruptionbudgets,daemonsets -A -o yaml): a NodePool whose configuration drifts some of its "+
		"NodeClaims gets nodes-will-drift, with how many and why")
	return fs
}

// scheduleFlags declares the schedule command's flags into o: lint's and
// its own.
func scheduleFlags(o *options, configPath *string, outputs *outputList) *flag.FlagSet {
	fs := commonFlags("schedule", o, configPath, outputs)
	fs.Var(&o.Pools, "pools", "NodePools and EC2NodeClasses: a file, a directory (recursive) or - for standard input (repeatable)")
	fs.Var(&o.Workloads, "workloads", "the workloads whose pods are scheduled: a file, a directory (recursive) or - for standard input (repeatable)")
	fs.Var(&o.Baseline, "baseline", "the NodePools and EC2NodeClasses before the change (a file or a directory, repeatable): "+
		"prints what the change moves and the NodeClaims it adds and removes")
	fs.Var(&o.AllowUnschedulable, "allow-unschedulable", `a workload, "<namespace>/<kind>/<name>", whose unschedulable pods are a warning, not an error (repeatable)`)
	fs.StringVar(&o.ClusterState, "cluster-state", "", "the running cluster: a file holding the List `kubectl get nodes,nodeclaims,pods,poddisruptionbudgets,daemonsets -A -o yaml` prints; pods go to its nodes first")
	fs.Var(optional[float64]{&o.VMMemoryOverhead, strconv.ParseFloat}, "vm-memory-overhead-percent",
		"the controller's VM_MEMORY_OVERHEAD_PERCENT, when not Karpenter's default 0.075")
	fs.Var(optional[int]{&o.ReservedENIs, func(s string, _ int) (int, error) { return strconv.Atoi(s) }}, "reserved-enis",
		"the controller's RESERVED_ENIS, when not Karpenter's default 0")
	return fs
}

// optional is a flag whose value stays nil until it is set.
type optional[T any] struct {
	p     **T
	parse func(string, int) (T, error)
}

func (o optional[T]) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return fmt.Sprint(**o.p)
}

func (o optional[T]) Set(s string) error {
	v, err := o.parse(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	*o.p = &v
	return nil
}

// commonFlags declares the flags of both commands.
func commonFlags(name string, o *options, configPath *string, outputs *outputList) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Var(&o.Formats, "format", "output format: text, compact, json, sarif, junit or github (repeatable; default text)")
	fs.Var(outputs, "output", "file the format given at the same position is written to; - or none for stdout (repeatable)")
	fs.StringVar(&o.KarpenterVersion, "karpenter-version", "", "the Karpenter release the rules follow, 1.0 to 1.14 (default 1.14)")
	fs.StringVar(&o.FailLevel, "fail-level", "", "exit 2 on findings of this severity or above: error or warning (default error)")
	fs.Var(&o.Enable, "enable", "turn a rule disabled by the configuration file back on (repeatable, or comma-separated)")
	fs.Var(&o.Disable, "disable", "turn a rule off (repeatable, or comma-separated)")
	fs.StringVar(configPath, "config", "", "configuration file (default "+defaultConfig+" in the working directory, when it exists)")
	fs.StringVar(&o.Region, "region", "", "AWS region: run the checks that need the account's facts (images, readiness, instance types)")
	fs.StringVar(&o.Profile, "profile", "", "AWS shared-configuration profile: as --region, with the profile's region unless --region is given")
	fs.StringVar(&o.KubernetesVersion, "kubernetes-version", "", "the cluster's Kubernetes minor (1.32) for resolving AMI aliases, with --region or --profile")
	fs.StringVar(&o.Cluster, "cluster", "", "EKS cluster whose Kubernetes version AMI aliases resolve for (eks:DescribeCluster), with --region or --profile")
	fs.StringVar(&o.SourceRoot, "source-root", "", "directory the paths of '# Source:' comments (helm template) are relative to, e.g. charts")
	fs.StringVar(&o.FeatureGates, "feature-gates", "", "the Karpenter controller's FEATURE_GATES, e.g. NodeOverlay=true: NodeOverlays are applied only with NodeOverlay on (default: Karpenter's, NodeOverlay off)")
	return fs
}

// parseArgs parses flags and paths in any order (flags after paths too);
// everything after "--" is a path.
func parseArgs(fs *flag.FlagSet, args []string) (paths []string, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return paths, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(paths, rest...), nil
		}
		paths = append(paths, rest[0])
		args = rest[1:]
	}
}

// loadConfig reads the configuration file: path when given (it must
// exist), else defaultConfig when it exists. Unknown keys are errors.
func loadConfig(path string) (options, string, error) {
	var o options
	explicit := path != ""
	if !explicit {
		path = defaultConfig
	}
	b, err := os.ReadFile(path)
	switch {
	case !explicit && errors.Is(err, fs.ErrNotExist):
		return o, "", nil
	case err != nil:
		return o, "", fmt.Errorf("reading the configuration: %w", err)
	}
	if err := yaml.UnmarshalStrict(b, &o); err != nil {
		return o, "", fmt.Errorf("%s: %s", path, configHint(err))
	}
	return o, path, nil
}

// configHint adds a did-you-mean to an unknown key.
func configHint(err error) string {
	msg := err.Error()
	_, after, ok := strings.Cut(msg, `unknown field "`)
	if !ok {
		return msg
	}
	key, _, _ := strings.Cut(after, `"`)
	var keys []string
	t := reflect.TypeOf(options{})
	for i := 0; i < t.NumField(); i++ {
		keys = append(keys, t.Field(i).Tag.Get("json"))
	}
	return fmt.Sprintf("unknown key %q%s; the keys are %s", key, suggest.Hint(key, keys), strings.Join(keys, ", "))
}

// merge lays the flags that were set over the configuration file.
func merge(file, flags options, set map[string]bool) options {
	o := file
	str := map[string][2]*string{
		"karpenter-version": {&o.KarpenterVersion, &flags.KarpenterVersion}, "fail-level": {&o.FailLevel, &flags.FailLevel},
		"region": {&o.Region, &flags.Region}, "profile": {&o.Profile, &flags.Profile},
		"kubernetes-version": {&o.KubernetesVersion, &flags.KubernetesVersion}, "cluster": {&o.Cluster, &flags.Cluster},
		"source-root": {&o.SourceRoot, &flags.SourceRoot}, "cluster-state": {&o.ClusterState, &flags.ClusterState},
		"feature-gates": {&o.FeatureGates, &flags.FeatureGates},
	}
	for name, p := range str {
		if set[name] {
			*p[0] = *p[1]
		}
	}
	if set["vm-memory-overhead-percent"] {
		o.VMMemoryOverhead = flags.VMMemoryOverhead
	}
	if set["reserved-enis"] {
		o.ReservedENIs = flags.ReservedENIs
	}
	if set["classes-from"] {
		o.ClassesFrom = flags.ClassesFrom
	}
	if set["require-cross-checks"] {
		o.RequireCrossChecks = flags.RequireCrossChecks
	}
	if set["pools"] {
		o.Pools = flags.Pools
	}
	if set["workloads"] {
		o.Workloads = flags.Workloads
	}
	if set["baseline"] {
		o.Baseline = flags.Baseline
	}
	// Acknowledged workloads add up: the file's and the command line's.
	for _, k := range flags.AllowUnschedulable {
		if !slices.Contains(o.AllowUnschedulable, k) {
			o.AllowUnschedulable = append(o.AllowUnschedulable, k)
		}
	}
	if set["format"] {
		o.Formats = flags.Formats
	}
	if set["output"] {
		o.Outputs = flags.Outputs
	}
	// Disabled: the file's disable list, less the file's enable list, plus
	// --disable, less --enable.
	off := map[string]bool{}
	for _, step := range []struct {
		ids list
		on  bool
	}{{file.Disable, false}, {file.Enable, true}, {flags.Disable, false}, {flags.Enable, true}} {
		for _, id := range step.ids {
			off[id] = !step.on
		}
	}
	o.Enable, o.Disable = append(append(list{}, file.Enable...), flags.Enable...), nil
	for _, id := range append(append(list{}, file.Disable...), flags.Disable...) {
		if off[id] && !slices.Contains(o.Disable, id) {
			o.Disable = append(o.Disable, id)
		}
	}
	if len(flags.Paths) > 0 {
		o.Paths = flags.Paths
	}
	if o.FailLevel == "" {
		o.FailLevel = "error"
	}
	if len(o.Formats) == 0 {
		o.Formats = list{"text"}
	}
	return o
}
