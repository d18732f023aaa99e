// Command karpenter-lint checks EC2NodeClass and NodePool YAML (a Helm
// chart's rendered output, a GitOps repository) with the rules of the
// Terraform provider, and decides where Karpenter would put workloads'
// pods as its karpenter_scheduling data source does, without Terraform:
//
//	karpenter-lint lint [flags] [PATH|-]...   files, directories (recursive *.yaml, *.yml, *.json), - for stdin
//	karpenter-lint schedule --pools PATH --workloads PATH --region REGION [flags]
//	                                          where Karpenter would put the workloads' pods
//	karpenter-lint disruption --pools PATH --cluster-state FILE
//	                                          what a change drifts on a running cluster, and how budgets pace it
//	karpenter-lint snapshot [--kubeconfig F] [--context C] [-o FILE]
//	                                          write the running cluster as the List --cluster-state reads
//	karpenter-lint rules list | show ID       the rule catalogue
//	karpenter-lint version
//
// Exit status: 0 nothing at or above --fail-level, 1 the command could not
// run (a flag, the configuration, an unreadable path, a failed AWS
// request), 2 findings at or above --fail-level. See docs/guides/linting-in-ci.md.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
)

// version is set by the release build (-ldflags "-X main.version=...");
// go install ...@vX.Y.Z records it in the build info instead.
var version = "dev"

// Exit statuses.
const (
	exitOK       = 0
	exitCannot   = 1
	exitFindings = 2
)

// command is one subcommand: run gets the arguments after its name.
type command struct {
	summary string
	run     func(env *env, args []string) int
}

// env is what a command reads and writes, so tests run commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// errorf reports why the command could not run; it returns exitCannot.
func (e *env) errorf(format string, args ...any) int {
	// Nothing is left to tell when stderr fails too.
	_, _ = fmt.Fprintf(e.stderr, "karpenter-lint: "+format+"\n", args...)
	return exitCannot
}

var commands map[string]command

func init() {
	// Set in init: the commands' help prints this table.
	commands = map[string]command{
		"lint":       {"check EC2NodeClass and NodePool manifests", runLint},
		"disruption": {"what a NodePool change drifts on a running cluster, and how budgets pace it (offline)", runDisruption},
		"rules":      {"list the rules, or show one", runRules},
		"schedule":   {"decide where Karpenter would put the workloads' pods (needs AWS)", runSchedule},
		"snapshot":   {"write the running cluster as the List the other commands read (kubeconfig, list only)", runSnapshot},
		"version":    {"print the version", runVersion},
	}
}

func main() {
	os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

func run(e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stdout)
		if len(args) == 0 {
			return exitCannot
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		usage(e.stderr)
		return e.errorf("unknown command %q", args[0])
	}
	return c.run(e, args[1:])
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("karpenter-lint checks Karpenter EC2NodeClass and NodePool YAML with the rules of terraform-provider-karpenter,\n" +
		"and decides where Karpenter would put your workloads' pods.\n\nUsage: karpenter-lint <command> [flags] [arguments]\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-9s %s\n", n, commands[n].summary)
	}
	b.WriteString("\nRun karpenter-lint <command> -h for its flags.\n")
	_, _ = io.WriteString(w, b.String()) // help text: nothing to do when it cannot be shown
}

func runVersion(e *env, args []string) int {
	if len(args) > 0 {
		return e.errorf("version takes no arguments")
	}
	if _, err := fmt.Fprintln(e.stdout, "karpenter-lint", toolVersion()); err != nil {
		return e.errorf("%v", err)
	}
	return exitOK
}

// toolVersion is the release version, or the module version go install
// recorded.
func toolVersion() string {
	if version != "dev" {
		return strings.TrimPrefix(version, "v")
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return version
}
