// Package snapshot reads a running cluster as the project is given it: the
// List that
//
//	kubectl get nodes,nodeclaims,pods,poddisruptionbudgets,daemonsets -A -o yaml
//
// prints (NodePools and EC2NodeClasses may be in it too), decoded into the
// Kubernetes and Karpenter API types Karpenter's controllers read. The
// provider never connects to a cluster: a snapshot is a file the user
// makes.
//
// A snapshot that cannot be read whole is reported item by item (which
// item, on which line, what is missing) and nothing is guessed: an item
// that cannot be read, or that Karpenter's cluster state would not take
// (a managed Node without spec.providerID, a Node without
// status.allocatable), is left out with a finding; references that point
// outside the snapshot (a pod bound to a Node it does not hold, a Node of
// a NodePool whose NodeClaim is missing) are findings, so that a partial
// snapshot is never read as a smaller cluster without saying so.
package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
)

// Command is the kubectl command whose output a snapshot is.
const Command = "kubectl get nodes,nodeclaims,pods,poddisruptionbudgets,daemonsets,nodepools,ec2nodeclasses -A -o yaml"

// Snapshot is a cluster as kubectl printed it, in input order per kind.
type Snapshot struct {
	Nodes         []*corev1.Node
	NodeClaims    []*karpv1.NodeClaim
	Pods          []*corev1.Pod
	PDBs          []*policyv1.PodDisruptionBudget
	DaemonSets    []*appsv1.DaemonSet
	NodePools     []*karpv1.NodePool
	NodeClassDocs []Item // EC2NodeClasses, as their JSON (the caller's model decodes them)
	// Findings are what could not be read or does not hold together, in
	// input order.
	Findings []Finding
	// Items counts the objects read, all kinds together.
	Items int
	// Taken is when the snapshot was taken, from its first line
	// (TakenPrefix, which karpenter-lint snapshot writes); zero when it
	// does not say (kubectl's List carries no time).
	Taken time.Time
}

// TakenPrefix starts the comment line that says when a snapshot was
// taken, followed by an RFC 3339 time.
const TakenPrefix = "# snapshot taken at "

// Item is one object of the snapshot as JSON, with where it starts.
type Item struct {
	Name string
	JSON []byte
	Line int
}

// Finding is one problem of the snapshot. Item counts the objects of the
// input from 0 (the items of a List, then the next document's), Line is
// where it starts (1-based; 0 when unknown), Object names it ("Node
// ip-10-0-1-7", "Pod default/web-1"; "" for a whole document).
type Finding struct {
	Item    int
	Line    int
	Object  string
	Message string
	// Dropped is set when the object is not part of the snapshot read.
	Dropped bool
}

func (f Finding) String() string {
	where := fmt.Sprintf("item %d", f.Item)
	if f.Item < 0 {
		where = "the snapshot"
	}
	if f.Line > 0 {
		where += fmt.Sprintf(", line %d", f.Line)
	}
	if f.Object != "" {
		where = f.Object + " (" + where + ")"
	}
	return where + ": " + f.Message
}

// kinds are the kinds a snapshot holds, by kind, with the apiVersion
// Karpenter v1 reads them at.
var kinds = map[string]string{
	"Node":                "v1",
	"Pod":                 "v1",
	"NodeClaim":           "karpenter.sh/v1",
	"NodePool":            "karpenter.sh/v1",
	"PodDisruptionBudget": "policy/v1",
	"DaemonSet":           "apps/v1",
	"EC2NodeClass":        "karpenter.k8s.aws/v1",
}

// Parse reads a snapshot: one List document as kubectl prints it, or a
// stream of documents each an object or a List. It never fails; what it
// cannot read is a finding.
func Parse(text string) *Snapshot {
	s := &Snapshot{}
	if first, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, TakenPrefix) {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(strings.TrimPrefix(first, TakenPrefix))); err == nil {
			s.Taken = t.UTC()
		}
	}
	item := 0
	seen := map[string]int{}
	for _, d := range yamlstream.Split(text) {
		if yamlstream.Blank(d.Text) {
			continue
		}
		item = s.readDocument(d.Text, d.Line, item, seen)
	}
	if s.Items == 0 && len(s.Findings) == 0 {
		s.Findings = append(s.Findings, Finding{Item: -1, Message: "it holds no object: write it with `" + Command + " > cluster.yaml`"})
	}
	s.crossCheck()
	return s
}

func (s *Snapshot) fail(item, line int, object, msg string) {
	s.Findings = append(s.Findings, Finding{Item: item, Line: line, Object: object, Message: msg, Dropped: true})
}

// readDocument reads one YAML document; it returns the next item number.
func (s *Snapshot) readDocument(body string, first, item int, seen map[string]int) int {
	j, err := sigsyaml.YAMLToJSON([]byte(body))
	if err != nil {
		s.fail(item, first, "", "the document is not YAML: "+yamlstream.ShiftLines(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: yaml: "), first-1))
		return item + 1
	}
	j = bytes.TrimSpace(j)
	if len(j) == 0 || j[0] != '{' {
		s.fail(item, first, "", "the document is not a mapping: a snapshot is the List `"+Command+"` prints")
		return item + 1
	}
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(j, &head); err != nil {
		s.fail(item, first, "", "apiVersion, kind or items has the wrong type: "+err.Error())
		return item + 1
	}
	if head.Kind != "List" && !strings.HasSuffix(head.Kind, "List") {
		s.readItem(item, first+leadingBlankLines(body), j, seen)
		return item + 1
	}
	lines := itemLines(body, len(head.Items))
	for i, raw := range head.Items {
		line := first
		if lines != nil {
			line = lines[i] + first - 1
		}
		s.readItem(item, line, raw, seen)
		item++
	}
	return item
}

// itemLines are the lines (1-based, in body) the items of a List start
// on. kubectl prints them as "- " at column 0 under a top-level items:,
// which a line scan finds in a fraction of a YAML parse of a large
// snapshot; any other layout is parsed.
func itemLines(body string, n int) []int {
	var out []int
	inItems := false
	for i, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, "items:"):
			inItems = true
		case inItems && strings.HasPrefix(l, "- "):
			out = append(out, i+1)
		case inItems && l != "" && l[0] != ' ' && l[0] != '-' && l[0] != '#':
			inItems = false
		}
	}
	if len(out) == n {
		return out
	}
	var root yaml.Node
	if yaml.Unmarshal([]byte(body), &root) != nil || root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil
	}
	items := field(root.Content[0], "items")
	if items == nil || items.Kind != yaml.SequenceNode || len(items.Content) != n {
		return nil
	}
	out = out[:0]
	for _, c := range items.Content {
		out = append(out, c.Line)
	}
	return out
}

// leadingBlankLines counts the blank and comment lines before a
// document's first key.
func leadingBlankLines(body string) int {
	n := 0
	for _, l := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		n++
	}
	return n
}

func field(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// readItem decodes one object into its kind's type.
func (s *Snapshot) readItem(item, line int, raw []byte, seen map[string]int) {
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		s.fail(item, line, "", "apiVersion, kind or metadata has the wrong type: "+err.Error())
		return
	}
	name := meta.Metadata.Name
	if meta.Metadata.Namespace != "" {
		name = meta.Metadata.Namespace + "/" + name
	}
	object := strings.TrimSpace(meta.Kind + " " + name)
	want, known := kinds[meta.Kind]
	switch {
	case meta.Kind == "" || meta.APIVersion == "":
		s.fail(item, line, object, "it has no apiVersion or no kind, so it cannot be told what object it is; kubectl get -o yaml prints both for every item")
		return
	case !known:
		s.fail(item, line, object, fmt.Sprintf("a %s is not part of a cluster snapshot (%s), so it is not read", meta.Kind, Command))
		return
	case meta.APIVersion != want:
		s.fail(item, line, object, fmt.Sprintf("apiVersion %q: Karpenter v1 reads %s at %s; get the snapshot from the cluster's API server, which serves it at that version", meta.APIVersion, meta.Kind, want))
		return
	case meta.Metadata.Name == "":
		s.fail(item, line, object, "it has no metadata.name")
		return
	case namespaced(meta.Kind) && meta.Metadata.Namespace == "":
		s.fail(item, line, object, "it has no metadata.namespace: kubectl get -A prints it for every namespaced object")
		return
	}
	key := meta.Kind + "/" + name
	if prev, dup := seen[key]; dup {
		s.fail(item, line, object, fmt.Sprintf("it is in the snapshot twice (item %d first), so which state to read is not known", prev))
		return
	}
	seen[key] = item
	var err error
	switch meta.Kind {
	case "Node":
		n := &corev1.Node{}
		if err = json.Unmarshal(raw, n); err == nil && s.checkNode(item, line, object, n) {
			s.Nodes = append(s.Nodes, n)
		}
	case "Pod":
		p := &corev1.Pod{}
		if err = json.Unmarshal(raw, p); err == nil {
			s.Pods = append(s.Pods, p)
		}
	case "NodeClaim":
		nc := &karpv1.NodeClaim{}
		if err = json.Unmarshal(raw, nc); err == nil && s.checkNodeClaim(item, line, object, nc) {
			s.NodeClaims = append(s.NodeClaims, nc)
		}
	case "NodePool":
		np := &karpv1.NodePool{}
		if err = json.Unmarshal(raw, np); err == nil {
			s.NodePools = append(s.NodePools, np)
		}
	case "PodDisruptionBudget":
		pdb := &policyv1.PodDisruptionBudget{}
		if err = json.Unmarshal(raw, pdb); err == nil {
			s.PDBs = append(s.PDBs, pdb)
		}
	case "DaemonSet":
		ds := &appsv1.DaemonSet{}
		if err = json.Unmarshal(raw, ds); err == nil {
			s.DaemonSets = append(s.DaemonSets, ds)
		}
	case "EC2NodeClass":
		s.NodeClassDocs = append(s.NodeClassDocs, Item{Name: meta.Metadata.Name, JSON: raw, Line: line})
	}
	if err != nil {
		s.fail(item, line, object, "it does not decode as a "+meta.Kind+": "+err.Error())
		return
	}
	s.Items++
}

func namespaced(kind string) bool {
	return kind == "Pod" || kind == "PodDisruptionBudget" || kind == "DaemonSet"
}

// checkNode keeps what Karpenter's cluster state keeps (state.Cluster
// UpdateNode): a node of a NodePool without spec.providerID is not
// tracked, nor one without an instance-type label before it is
// initialized; a node without allocatable would read as full.
func (s *Snapshot) checkNode(item, line int, object string, n *corev1.Node) bool {
	managed := n.Labels[karpv1.NodePoolLabelKey] != ""
	switch {
	case managed && n.Spec.ProviderID == "":
		s.fail(item, line, object, "it belongs to NodePool "+n.Labels[karpv1.NodePoolLabelKey]+" but has no spec.providerID: Karpenter's cluster state does not track it until the cloud provider sets one")
		return false
	case managed && n.Labels[corev1.LabelInstanceTypeStable] == "" && n.Labels[karpv1.NodeInitializedLabelKey] == "":
		s.fail(item, line, object, "it belongs to NodePool "+n.Labels[karpv1.NodePoolLabelKey]+" but has no "+corev1.LabelInstanceTypeStable+" label and is not initialized: Karpenter's cluster state waits for the label before it tracks the node")
		return false
	case len(n.Status.Allocatable) == 0:
		s.fail(item, line, object, "it has no status.allocatable, so what fits on it is not known; the snapshot must be kubectl's full output, not a trimmed one")
		return false
	}
	return true
}

// checkNodeClaim refuses a NodeClaim Karpenter could not tie to a pool.
func (s *Snapshot) checkNodeClaim(item, line int, object string, nc *karpv1.NodeClaim) bool {
	switch {
	case nc.Labels[karpv1.NodePoolLabelKey] == "":
		s.fail(item, line, object, "it has no "+karpv1.NodePoolLabelKey+" label, so no NodePool owns it (Karpenter's disruption and budgets read the label)")
		return false
	case nc.Spec.NodeClassRef == nil || nc.Spec.NodeClassRef.Name == "":
		s.fail(item, line, object, "it has no spec.nodeClassRef, which Karpenter requires of every NodeClaim")
		return false
	}
	return true
}

// crossCheck reports references that leave the snapshot: kubectl was asked
// for fewer kinds, or the objects changed while it printed.
func (s *Snapshot) crossCheck() {
	nodes := map[string]bool{}
	providerIDs := map[string]bool{}
	for _, n := range s.Nodes {
		nodes[n.Name] = true
		providerIDs[n.Spec.ProviderID] = true
	}
	claimed := map[string]bool{}
	for _, nc := range s.NodeClaims {
		if nc.Status.ProviderID != "" {
			claimed[nc.Status.ProviderID] = true
		}
		if nc.Status.NodeName != "" && !nodes[nc.Status.NodeName] {
			s.Findings = append(s.Findings, Finding{Item: -1, Object: "NodeClaim " + nc.Name,
				Message: fmt.Sprintf("its node %s is not in the snapshot: the NodeClaim is read as launched without a node, which Karpenter only sees while a node registers", nc.Status.NodeName)})
		}
	}
	unclaimed := 0
	var first string
	for _, n := range s.Nodes {
		if n.Labels[karpv1.NodePoolLabelKey] != "" && !claimed[n.Spec.ProviderID] {
			if unclaimed == 0 {
				first = n.Name
			}
			unclaimed++
		}
	}
	if unclaimed > 0 {
		s.Findings = append(s.Findings, Finding{Item: -1, Object: "Node " + first,
			Message: fmt.Sprintf("%d node(s) of a NodePool have no NodeClaim in the snapshot (none with their providerID): Karpenter neither drifts nor consolidates a node without its NodeClaim; include nodeclaims in the kubectl command", unclaimed)})
	}
	missing := map[string]int{}
	for _, p := range s.Pods {
		if p.Spec.NodeName != "" && !nodes[p.Spec.NodeName] {
			missing[p.Spec.NodeName]++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		s.Findings = append(s.Findings, Finding{Item: -1, Object: "Node " + name,
			Message: fmt.Sprintf("%d pod(s) are bound to it but it is not in the snapshot (or was left out above), so the room they take is not counted anywhere", missing[name])})
	}
}

// Errors are the findings that left an object out.
func (s *Snapshot) Errors() []Finding {
	var out []Finding
	for _, f := range s.Findings {
		if f.Dropped {
			out = append(out, f)
		}
	}
	return out
}
