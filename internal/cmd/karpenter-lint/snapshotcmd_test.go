package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// fakeAPIServer serves the list endpoints of a snapshot's kinds from the
// objects of a List, nodes two pages long, and records every request. A
// kind in deny answers 403.
type fakeAPIServer struct {
	mu       sync.Mutex
	requests []string
	byPath   map[string][]any
	deny     string
}

var snapshotPaths = map[string]string{
	"Node": "/api/v1/nodes", "NodeClaim": "/apis/karpenter.sh/v1/nodeclaims", "Pod": "/api/v1/pods",
	"PodDisruptionBudget": "/apis/policy/v1/poddisruptionbudgets", "DaemonSet": "/apis/apps/v1/daemonsets",
	"NodePool": "/apis/karpenter.sh/v1/nodepools", "EC2NodeClass": "/apis/karpenter.k8s.aws/v1/ec2nodeclasses",
}

func newFakeAPIServer(t *testing.T, list string) *fakeAPIServer {
	t.Helper()
	var l struct{ Items []map[string]any }
	if err := sigsyaml.Unmarshal([]byte(list), &l); err != nil {
		t.Fatal(err)
	}
	f := &fakeAPIServer{byPath: map[string][]any{}}
	for _, it := range l.Items {
		kind, _ := it["kind"].(string)
		// As an API server lists them: without apiVersion and kind per
		// item, with managedFields.
		delete(it, "kind")
		delete(it, "apiVersion")
		if m, ok := it["metadata"].(map[string]any); ok {
			m["managedFields"] = []any{map[string]any{"manager": "kubelet", "operation": "Update"}}
		}
		f.byPath[snapshotPaths[kind]] = append(f.byPath[snapshotPaths[kind]], it)
	}
	return f
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	f.mu.Unlock()
	kind := ""
	for k, p := range snapshotPaths {
		if p == r.URL.Path {
			kind = k
		}
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case kind == "" || r.Method != http.MethodGet || r.URL.Query().Get("watch") != "":
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
		return
	case kind == f.deny:
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"forbidden"}`))
		return
	}
	items := f.byPath[r.URL.Path]
	meta := map[string]any{"resourceVersion": "42"}
	if kind == "Node" && len(items) > 1 {
		if r.URL.Query().Get("continue") == "" {
			items, meta["continue"] = items[:1], "page-2"
		} else {
			items = items[1:]
		}
	}
	gv := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(r.URL.Path[:strings.LastIndex(r.URL.Path, "/")], "/"), "/apis/"), "/api/")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": gv, "kind": kind + "List", "metadata": meta, "items": append([]any{}, items...)})
}

func kubeconfigFor(t *testing.T, url string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "kubeconfig")
	write(t, name, `apiVersion: v1
kind: Config
clusters:
  - name: fake
    cluster: { server: "`+url+`" }
  - name: other
    cluster: { server: "http://127.0.0.1:1" }
contexts:
  - name: fake
    context: { cluster: fake, user: u }
  - name: other
    context: { cluster: other, user: u }
current-context: other
users:
  - name: u
    user: { token: t }
`)
	return name
}

// snapshot lists every kind (list only, paginated) from the context
// asked for, and what it writes reads back with no finding, the same
// objects, and the time it was taken.
func TestSnapshotCommand(t *testing.T) {
	l := &snapshottest.List{}
	l.Add(snapshottest.Node{Name: "a", Pool: "default", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29})
	l.Add(snapshottest.Node{Name: "b", Pool: "default", Class: "default", InstanceType: "m5.large", Zone: "us-east-1b", CPU: "1930m", Memory: "7Gi", Pods: 29})
	l.AddPod(snapshottest.Pod{Namespace: "default", Name: "web-1", Node: "a", CPU: "1", Memory: "1Gi", Labels: map[string]string{"app": "web"}})
	l.AddPDB(snapshottest.PDB{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}, MaxUnavailable: 1, DisruptionsAllowed: 1})
	var pool, class map[string]any
	if err := sigsyaml.Unmarshal([]byte(schedulingtest.Pool("default", "", "")), &pool); err != nil {
		t.Fatal(err)
	}
	if err := sigsyaml.Unmarshal([]byte(schedulingtest.Class), &class); err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	if err := sigsyaml.Unmarshal([]byte(l.YAML()), &list); err != nil {
		t.Fatal(err)
	}
	list["items"] = append(list["items"].([]any), pool, class)
	y, _ := sigsyaml.Marshal(list)
	api := newFakeAPIServer(t, string(y))
	srv := httptest.NewServer(api)
	defer srv.Close()
	kubeconfig := kubeconfigFor(t, srv.URL)
	out := filepath.Join(t.TempDir(), "cluster.yaml")

	code, _, stderr := lint(t, "", "snapshot", "--kubeconfig", kubeconfig, "--context", "fake", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	s := snapshot.Parse(text)
	if len(s.Findings) > 0 || len(s.Nodes) != 2 || len(s.NodeClaims) != 2 || len(s.Pods) != 1 || len(s.PDBs) != 1 || len(s.NodePools) != 1 || len(s.NodeClassDocs) != 1 {
		t.Fatalf("read back: findings %v, %d nodes %d claims %d pods %d pdbs %d pools %d classes\n%s", s.Findings, len(s.Nodes), len(s.NodeClaims), len(s.Pods), len(s.PDBs), len(s.NodePools), len(s.NodeClassDocs), text)
	}
	if s.Taken.IsZero() || strings.Contains(text, "managedFields") {
		t.Errorf("taken %v; managedFields kept: %v", s.Taken, strings.Contains(text, "managedFields"))
	}
	pages := 0
	for _, r := range api.requests {
		if !strings.HasPrefix(r, "GET ") || strings.Contains(r, "watch") {
			t.Errorf("not a list: %s", r)
		}
		if strings.HasPrefix(r, "GET /api/v1/nodes?") {
			pages++
		}
	}
	if pages != 2 || len(api.requests) != len(snapshotPaths)+1 {
		t.Errorf("want every kind listed once, nodes in 2 pages: %v", api.requests)
	}

	// The kubeconfig's current context is another cluster: unreachable.
	if code, _, stderr := lint(t, "", "snapshot", "--kubeconfig", kubeconfig); code != exitCannot || !strings.Contains(stderr, "listing nodes") {
		t.Errorf("current context: exit %d %s", code, stderr)
	}
	// A kind the identity may not list fails the snapshot: a partial one
	// would read as a smaller cluster.
	api.deny = "EC2NodeClass"
	if code, _, stderr := lint(t, "", "snapshot", "--kubeconfig", kubeconfig, "--context", "fake"); code != exitCannot || !strings.Contains(stderr, "ec2nodeclasses.karpenter.k8s.aws: the identity may not (RBAC)") {
		t.Errorf("forbidden: exit %d %s", code, stderr)
	}
}
