package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

const snapshotUsage = `Usage: karpenter-lint snapshot [--kubeconfig FILE] [--context NAME] [-o FILE]

Writes the running cluster as the List the disruption and schedule commands and the provider's cluster_state read
(the kinds of ` + snapshot.Command + `),
with the time it was taken on its first line. It only lists (the list verb of each kind, paginated): the identity
needs list on nodes, pods, daemonsets, poddisruptionbudgets, and Karpenter's nodeclaims, nodepools and ec2nodeclasses.
managedFields are left out, as kubectl leaves them out.

Flags:
`

// snapshotKinds are the resources a snapshot lists, in the order the
// List holds them.
var snapshotKinds = []schema.GroupVersionResource{
	{Version: "v1", Resource: "nodes"},
	{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"},
	{Version: "v1", Resource: "pods"},
	{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
	{Group: "apps", Version: "v1", Resource: "daemonsets"},
	{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
	{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
}

// snapshotPageSize is how many objects one list request asks for, as
// kubectl's --chunk-size.
const snapshotPageSize = 500

// runSnapshot is the snapshot command.
func runSnapshot(e *env, args []string) int {
	fs := flag.NewFlagSet("snapshot", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var kubeconfig, kubeContext, output string
	fs.StringVar(&kubeconfig, "kubeconfig", "", "the kubeconfig file (default: KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&kubeContext, "context", "", "the kubeconfig context (default: its current-context)")
	fs.StringVar(&output, "o", "-", "the file to write, - for standard output")
	fs.Usage = func() {
		_, _ = fmt.Fprint(e.stderr, snapshotUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitCannot
	}
	if fs.NArg() > 0 {
		return e.errorf("snapshot takes no arguments: the cluster is the kubeconfig's (--kubeconfig, --context)")
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext}).ClientConfig()
	if err != nil {
		return e.errorf("kubeconfig: %v", err)
	}
	cfg.UserAgent = "karpenter-lint/" + toolVersion()
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return e.errorf("kubeconfig: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	text, err := takeSnapshot(ctx, client, time.Now().UTC())
	if err != nil {
		return e.errorf("%v", err)
	}
	if output == "-" {
		if _, err := e.stdout.Write(text); err != nil {
			return e.errorf("%v", err)
		}
		return exitOK
	}
	if err := os.WriteFile(output, text, 0o600); err != nil {
		return e.errorf("%v", err)
	}
	return exitOK
}

// takeSnapshot lists every kind of the snapshot, all namespaces, and
// returns the List as YAML with the time on its first line.
func takeSnapshot(ctx context.Context, client dynamic.Interface, now time.Time) ([]byte, error) {
	items := []any{}
	for _, gvr := range snapshotKinds {
		opts := metav1.ListOptions{Limit: snapshotPageSize}
		for {
			l, err := client.Resource(gvr).List(ctx, opts)
			if err != nil {
				return nil, listError(gvr, err)
			}
			for _, it := range l.Items {
				unstructuredDropManagedFields(it.Object)
				items = append(items, it.Object)
			}
			if opts.Continue = l.GetContinue(); opts.Continue == "" {
				break
			}
		}
	}
	y, err := sigsyaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items})
	if err != nil {
		return nil, err
	}
	return append([]byte(snapshot.TakenPrefix+now.Format(time.RFC3339)+"\n"), y...), nil
}

func unstructuredDropManagedFields(o map[string]any) {
	if m, ok := o["metadata"].(map[string]any); ok {
		delete(m, "managedFields")
	}
}

// listError says which list failed and what it means for the snapshot.
func listError(gvr schema.GroupVersionResource, err error) error {
	what := gvr.Resource
	if gvr.Group != "" {
		what += "." + gvr.Group
	}
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("listing %s: the identity may not (RBAC): a snapshot needs list on every kind it holds, else it would read as a smaller cluster: %v", what, err)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("listing %s: the API server does not serve %s/%s: is Karpenter v1 (its CRDs at %s) installed? %v", what, gvr.GroupVersion(), gvr.Resource, gvr.GroupVersion(), err)
	}
	return fmt.Errorf("listing %s: %v", what, err)
}
