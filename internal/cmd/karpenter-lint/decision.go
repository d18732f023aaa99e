package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

// locator places the decision's objects in the files they were read from:
// Input.Karpenter is --pools, Input.Workloads --workloads, one element per
// file; a `# Source:` comment (helm template) names the file a document
// stands for.
type locator struct {
	lists   map[string][]manifestcheck.Input
	sources map[string][]manifestcheck.Sources
	root    string
}

func newLocator(pools, workloads []manifestcheck.Input, root string) *locator {
	l := &locator{lists: map[string][]manifestcheck.Input{scheduling.ListKarpenter: pools, scheduling.ListWorkloads: workloads},
		sources: map[string][]manifestcheck.Sources{}, root: root}
	for name, inputs := range l.lists {
		for _, in := range inputs {
			l.sources[name] = append(l.sources[name], manifestcheck.SourcesOf(in.Text))
		}
	}
	return l
}

// addClusterState reads --cluster-state (a file, or - for standard
// input) as the locator's cluster_state list; "" when not given.
func (l *locator) addClusterState(e *env, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	in, err := readInputs(e.stdin, []string{name})
	if err != nil {
		return "", err
	}
	if len(in) != 1 {
		return "", fmt.Errorf("%s: give one file, the List kubectl prints", name)
	}
	l.lists[scheduling.ListCluster] = in
	l.sources[scheduling.ListCluster] = []manifestcheck.Sources{manifestcheck.SourcesOf("")}
	return in[0].Text, nil
}

// place is where an object of a list is: its input, the line and column
// there, and the `# Source:` file and line when it has one. An index of -1
// (the whole list) is its first input.
type place struct {
	input        string
	line, column int
	source       string
	sourceLine   int
}

func (l *locator) place(list string, i int, pos scheduling.Position) place {
	inputs := l.lists[list]
	if len(inputs) == 0 {
		return place{line: 1, column: 1}
	}
	if i < 0 || i >= len(inputs) {
		i, pos = 0, scheduling.Position{}
	}
	p := place{input: inputs[i].Name, line: max(pos.Line, 1), column: max(pos.Column, 1)}
	p.source, p.sourceLine, _ = l.sources[list][i].Lookup(p.line)
	return p
}

// file is the file and line a reader opens.
func (l *locator) file(p place) (string, int) {
	if p.source != "" {
		return path.Join(l.root, p.source), p.sourceLine
	}
	return p.input, p.line
}

// describe names an object's place in the decision's messages: file:line.
func (l *locator) describe(list string, i int, pos scheduling.Position) string {
	f, line := l.file(l.place(list, i, pos))
	return fmt.Sprintf("%s:%d", f, line)
}

// objectName is a key "<namespace>/<kind>/<name>" as lint names objects,
// "<kind>/<name>"; the namespace is in the message.
func objectName(key string) string {
	if parts := strings.SplitN(key, "/", 3); len(parts) == 3 {
		return parts[1] + "/" + parts[2]
	}
	return key
}

// result is the decision's findings and documents as the report reads
// lint's: the findings located in their files, the NodePools,
// EC2NodeClasses and workloads as the documents checked.
func (l *locator) result(p *scheduling.Parsed, d *scheduling.Decision, notes []string) manifestcheck.Result {
	res := manifestcheck.Result{Skipped: notes}
	for _, f := range d.Findings {
		at := l.place(f.List, f.Input, f.Position)
		res.Findings = append(res.Findings, manifestcheck.Finding{Rule: f.Rule, Severity: f.Severity, Message: f.Detail,
			Object: objectName(f.Object), Input: at.input, Line: at.line, Column: at.column, Source: at.source, SourceLine: at.sourceLine})
	}
	doc := func(list string, i int, pos scheduling.Position, kind, name string) {
		at := l.place(list, i, pos)
		res.Documents = append(res.Documents, manifestcheck.Document{Input: at.input, Line: at.line, Source: at.source,
			SourceLine: at.sourceLine, Kind: kind, Name: name, Checked: true})
	}
	for _, np := range d.NodePools {
		doc(scheduling.ListKarpenter, np.Input, np.Position, "NodePool", np.Name)
	}
	for _, c := range p.Classes {
		doc(scheduling.ListKarpenter, c.Input, c.Position, "EC2NodeClass", c.Manifest.Metadata.Name)
	}
	for _, w := range d.Workloads {
		kind, name, _ := strings.Cut(objectName(w.Key), "/")
		doc(scheduling.ListWorkloads, w.Input, w.Position, kind, name)
	}
	return res
}

// decision is what the schedule command prints besides the findings; its
// JSON fields pods, node_claims and skipped are the data source's.
type decision struct {
	workloads  []scheduling.WorkloadResult
	nodeClaims []scheduling.NodeClaim
	existing   []scheduling.ExistingNode
	pools      []scheduling.PoolResult
	cost       scheduling.Cost
	classes    int
	// skipped are the objects of kinds the decision does not read.
	skipped []string
	// allow are the acknowledged workloads, unknownAllowed those of them
	// no workload has.
	allow, unknownAllowed []string
	// baseline is the change from --baseline's pools, when given.
	baseline *scheduling.Diff
}

func newDecision(p *scheduling.Parsed, d *scheduling.Decision, l *locator, allow []string) *decision {
	out := &decision{workloads: d.Workloads, nodeClaims: d.NodeClaims, existing: d.ExistingNodes, pools: d.NodePools, cost: d.Cost, classes: len(p.Classes), allow: allow}
	// A file given to both --pools and --workloads is read twice: each
	// object counts where it is read.
	workloadFiles := map[string]bool{}
	for _, in := range l.lists[scheduling.ListWorkloads] {
		workloadFiles[in.Name] = true
	}
	read := map[string]bool{}
	for _, np := range d.NodePools {
		read["/NodePool/"+np.Name] = true
	}
	for _, c := range p.Classes {
		read["/EC2NodeClass/"+c.Manifest.Metadata.Name] = true
	}
	for _, o := range p.Other {
		if !workloadFiles[l.lists[scheduling.ListKarpenter][o.Input].Name] {
			out.skipped = append(out.skipped, o.Key)
		}
	}
	for _, k := range d.Skipped {
		if !read[k] {
			out.skipped = append(out.skipped, k)
		}
	}
	keys := map[string]bool{}
	for _, w := range d.Workloads {
		keys[w.Key] = true
	}
	for _, k := range allow {
		if !keys[k] {
			out.unknownAllowed = append(out.unknownAllowed, k)
		}
	}
	return out
}

// counts are the pods, the unschedulable ones, and the pools left out.
func (d *decision) counts() (pods, unschedulable, leftOut int) {
	for _, w := range d.workloads {
		pods += w.Pods
		unschedulable += w.Unschedulable
	}
	for _, p := range d.pools {
		if p.Skipped != "" {
			leftOut++
		}
	}
	return pods, unschedulable, leftOut
}

func (d *decision) summary(files int) []string {
	pods, unschedulable, leftOut := d.counts()
	pools := plural(len(d.pools), "NodePool")
	if leftOut > 0 {
		pools += fmt.Sprintf(" (%d left out)", leftOut)
	}
	line := fmt.Sprintf("%s: %s, %s; %s with %s", plural(files, "file"), pools, plural(d.classes, "EC2NodeClass"),
		plural(len(d.workloads), "workload"), plural(pods, "pod"))
	if unschedulable > 0 {
		line += fmt.Sprintf(", %d not placed", unschedulable)
	}
	out := []string{line + "; " + plural(len(d.nodeClaims), "NodeClaim")}
	if n := len(d.skipped); n > 0 {
		const show = 10
		names, more := d.skipped, ""
		if n > show {
			names, more = names[:show], fmt.Sprintf(" and %d more", n-show)
		}
		out = append(out, fmt.Sprintf("Not read, of kinds the decision does not read (%d): %s%s", n, strings.Join(names, ", "), more))
	}
	if len(d.unknownAllowed) > 0 {
		out = append(out, "allow-unschedulable names no workload of the input: "+strings.Join(d.unknownAllowed, ", "))
	}
	return out
}

// shownTypes is how many instance types the text output names per
// NodeClaim (Karpenter keeps up to 600).
const shownTypes = 5

// writeText writes the decision as text: the workloads, then the
// NodeClaims, equal ones once with their count.
func (d *decision) writeText(b *strings.Builder) {
	w := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	// A strings.Builder does not fail; the tabwriter reports at Flush.
	_, _ = fmt.Fprintln(w, "WORKLOAD\tPODS\tNODEPOOLS\tNOT PLACED")
	for _, wl := range d.workloads {
		var pools []string
		for _, p := range slices.Sorted(maps.Keys(wl.NodePools)) {
			pools = append(pools, fmt.Sprintf("%s=%d", p, wl.NodePools[p]))
		}
		if n := sum(wl.ExistingNodes); n > 0 {
			pools = append(pools, fmt.Sprintf("existing nodes=%d", n))
		}
		notPlaced := ""
		if wl.Unschedulable > 0 {
			notPlaced = fmt.Sprint(wl.Unschedulable)
			if wl.Allowed {
				notPlaced += " (allowed)"
			}
		}
		_, _ = fmt.Fprintf(w, "%s\t%d\t%s\t%s\n", wl.Key, wl.Pods, orDash(strings.Join(pools, ", ")), notPlaced)
	}
	_ = w.Flush()
	b.WriteString("\n")
	type group struct {
		row   string
		count int
	}
	var groups []*group
	byRow := map[string]*group{}
	perPool := map[string]int{}
	for _, nc := range d.nodeClaims {
		perPool[nc.NodePool]++
		types := nc.InstanceTypes
		more := ""
		if len(types) > shownTypes {
			types, more = types[:shownTypes], fmt.Sprintf(" and %d more (%d)", len(nc.InstanceTypes)-shownTypes, len(nc.InstanceTypes))
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", nc.NodePool, podsByWorkload(nc.Pods), strings.Join(nc.Zones, ", "),
			strings.Join(nc.CapacityTypes, ", "), strings.Join(nc.Architectures, ", "), priceText(nc.Price), strings.Join(types, ", ")+more)
		if g := byRow[row]; g != nil {
			g.count++
			continue
		}
		g := &group{row: row, count: 1}
		byRow[row] = g
		groups = append(groups, g)
	}
	var pools []string
	for _, p := range slices.Sorted(maps.Keys(perPool)) {
		pools = append(pools, fmt.Sprintf("%s %d", p, perPool[p]))
	}
	if len(d.existing) > 0 {
		w = tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		_, _ = fmt.Fprintln(w, "EXISTING NODE\tNODEPOOL\tPODS")
		for _, n := range d.existing {
			_, _ = fmt.Fprintf(w, "%s\t%s\t%s\n", n.Name, orDash(n.NodePool), podsByWorkload(n.Pods))
		}
		_ = w.Flush()
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "NodeClaims Karpenter would create: %d", len(d.nodeClaims))
	if len(pools) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(pools, ", "))
	}
	b.WriteString("\n")
	defer d.writeBaseline(b)
	if len(groups) == 0 {
		return
	}
	w = tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "COUNT\tNODEPOOL\tPODS EACH\tZONES\tCAPACITY TYPES\tARCH\tPRICE/H EACH\tINSTANCE TYPES (cheapest first)")
	for _, g := range groups {
		_, _ = fmt.Fprintf(w, "%d\t%s\n", g.count, g.row)
	}
	_ = w.Flush()
	d.writeCost(b)
}

// priceText is a NodeClaim's hourly price: "$0.0960 on-demand", a spot
// range "$0.0290-0.0343 spot", "-" when nothing is left to price.
func priceText(p scheduling.Price) string {
	if !p.Known {
		return "-"
	}
	if p.IsRange() {
		return fmt.Sprintf("$%s-%s %s", money(p.Hourly), money(p.HourlyMax), p.CapacityType)
	}
	return fmt.Sprintf("$%s %s", money(p.Hourly), p.CapacityType)
}

// money prints a price to four decimals, or more when a smaller figure
// (a reserved price) would print as zero.
func money(v float64) string {
	if v != 0 && v < 0.0001 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// rangeText is "$low" or "$low-high" of a cost.
func rangeText(lo, hi float64, decimals int) string {
	s := "$" + strconv.FormatFloat(lo, 'f', decimals, 64)
	if hi != lo {
		s += "-" + strconv.FormatFloat(hi, 'f', decimals, 64)
	}
	return s
}

// writeCost writes the totals, per pool, and where the prices come from.
func (d *decision) writeCost(b *strings.Builder) {
	c := d.cost
	fmt.Fprintf(b, "\nCost of the NodeClaims: %s/h, %s/month (730 h)", rangeText(c.Hourly, c.HourlyMax, 4), rangeText(c.Monthly(), c.MonthlyMax(), 2))
	var pools []string
	for _, name := range slices.Sorted(maps.Keys(c.NodePools)) {
		pc := c.NodePools[name]
		pools = append(pools, fmt.Sprintf("%s %s/h", name, rangeText(pc.Hourly, pc.HourlyMax, 4)))
	}
	if len(pools) > 0 {
		fmt.Fprintf(b, "; %s", strings.Join(pools, ", "))
	}
	b.WriteString("\nPrices: " + c.Source + "\n")
}

// writeBaseline writes what the change from --baseline's pools does.
func (d *decision) writeBaseline(b *strings.Builder) {
	if d.baseline == nil {
		return
	}
	diff := d.baseline
	fmt.Fprintf(b, "\nAgainst the baseline: %s move, NodeClaims +%d -%d, cost %s/h (%s/month)\n", plural(len(diff.Moves), "workload"),
		len(diff.Added), len(diff.Removed), signedRange(diff.Cost.Hourly, diff.Cost.HourlyMax, 4), signedRange(diff.Cost.Monthly(), diff.Cost.MonthlyMax(), 2))
	if len(diff.Moves) > 0 {
		w := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		_, _ = fmt.Fprintln(w, "WORKLOAD\tBEFORE\tAFTER")
		for _, m := range diff.Moves {
			_, _ = fmt.Fprintf(w, "%s\t%s\t%s\n", m.Key, landing(m.Before), landing(m.After))
		}
		_ = w.Flush()
	}
	for _, c := range []struct {
		sign   string
		claims []scheduling.NodeClaim
	}{{"+", diff.Added}, {"-", diff.Removed}} {
		for _, nc := range c.claims {
			types := nc.InstanceTypes
			if len(types) > shownTypes {
				types = types[:shownTypes]
			}
			fmt.Fprintf(b, "%s %s: %s in %s, %s, %s (%s)\n", c.sign, nc.NodePool, podsByWorkload(nc.Pods), strings.Join(nc.Zones, ", "),
				strings.Join(nc.CapacityTypes, ", "), strings.Join(nc.Architectures, ", "), strings.Join(types, ", "))
		}
	}
}

// signedRange is a difference of costs, "+$0.0960", "-$1.20" or
// "+$0.0290..+$0.0343" where the low and high ends differ.
func signedRange(lo, hi float64, decimals int) string {
	signed := func(v float64) string {
		sign := "+"
		if v < 0 {
			sign, v = "-", -v
		}
		return sign + "$" + strconv.FormatFloat(v, 'f', decimals, 64)
	}
	if hi == lo {
		return signed(lo)
	}
	return signed(lo) + ".." + signed(hi)
}

// landing is a workload's pods per NodePool, "general=3, (not placed)=1".
func landing(m map[string]int) string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fmt.Sprintf("%s=%d", p, m[p]))
	}
	return orDash(strings.Join(out, ", "))
}

// podsByWorkload is a NodeClaim's pods by workload: "default/Deployment/web ×2".
func podsByWorkload(pods []string) string {
	var order []string
	n := map[string]int{}
	for _, p := range pods {
		k := p[:max(strings.LastIndex(p, "/"), 0)]
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	for i, k := range order {
		if n[k] > 1 {
			order[i] = fmt.Sprintf("%s ×%d", k, n[k])
		}
	}
	return orDash(strings.Join(order, ", "))
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// jsonPods is an entry of pods, the data source's attribute of that name.
type jsonPods struct {
	Pods          int            `json:"pods"`
	NodePools     map[string]int `json:"node_pools"`
	Unschedulable int            `json:"unschedulable"`
	Reason        string         `json:"reason"`
}

// jsonNodeClaim is an element of node_claims, as the data source's.
type jsonNodeClaim struct {
	NodePool      string   `json:"node_pool"`
	InstanceTypes []string `json:"instance_types"`
	Pods          []string `json:"pods"`
	Zones         []string `json:"zones"`
	CapacityTypes []string `json:"capacity_types"`
	Architectures []string `json:"architectures"`
	// HourlyPrice and HourlyPriceMax are null when nothing is left to price.
	HourlyPrice    *float64 `json:"hourly_price"`
	HourlyPriceMax *float64 `json:"hourly_price_max"`
}

// jsonCost is the data source's cost.
type jsonCost struct {
	Hourly     float64                 `json:"hourly"`
	HourlyMax  float64                 `json:"hourly_max"`
	Monthly    float64                 `json:"monthly"`
	MonthlyMax float64                 `json:"monthly_max"`
	Source     string                  `json:"source"`
	NodePools  map[string]jsonPoolCost `json:"node_pools"`
}

type jsonPoolCost struct {
	Hourly     float64 `json:"hourly"`
	HourlyMax  float64 `json:"hourly_max"`
	Monthly    float64 `json:"monthly"`
	MonthlyMax float64 `json:"monthly_max"`
	NodeClaims int     `json:"node_claims"`
}

func costJSON(c scheduling.Cost) jsonCost {
	out := jsonCost{Hourly: c.Hourly, HourlyMax: c.HourlyMax, Monthly: c.Monthly(), MonthlyMax: c.MonthlyMax(), Source: c.Source,
		NodePools: map[string]jsonPoolCost{}}
	for name, pc := range c.NodePools {
		out.NodePools[name] = jsonPoolCost{Hourly: pc.Hourly, HourlyMax: pc.HourlyMax, Monthly: pc.Monthly(), MonthlyMax: pc.MonthlyMax(), NodeClaims: pc.NodeClaims}
	}
	return out
}

// jsonPool is a NodePool of the input, and why Karpenter leaves it out.
type jsonPool struct {
	Name    string `json:"name"`
	LeftOut string `json:"left_out"`
}

// jsonSchedule is the schedule command's json format, documented in the
// CI guide and only ever added to (version says which).
type jsonSchedule struct {
	Version    int                 `json:"version"`
	Tool       jsonTool            `json:"tool"`
	Pods       map[string]jsonPods `json:"pods"`
	NodeClaims []jsonNodeClaim     `json:"node_claims"`
	// ExistingNodes are the pods that go to the nodes of --cluster-state,
	// by node (version 1 addition; empty without it).
	ExistingNodes map[string][]string `json:"existing_nodes"`
	Skipped       []string            `json:"skipped"`
	NodePools     []jsonPool          `json:"node_pools"`
	Cost          jsonCost            `json:"cost"`
	Findings      []finding           `json:"findings"`
	Summary       jsonScheduleSummary `json:"summary"`
	// Baseline is the change from --baseline's pools, when given.
	Baseline *jsonBaseline `json:"baseline,omitempty"`
}

// jsonBaseline is what the change from --baseline's pools does.
type jsonBaseline struct {
	Moves   []jsonMove      `json:"moves"`
	Added   []jsonNodeClaim `json:"added"`
	Removed []jsonNodeClaim `json:"removed"`
	// Cost is the new decision's cost less the baseline's.
	Cost jsonCost `json:"cost"`
}

// jsonMove is a workload whose pods land elsewhere ("(not placed)" counts
// the pods Karpenter would not place).
type jsonMove struct {
	Workload string         `json:"workload"`
	Before   map[string]int `json:"before"`
	After    map[string]int `json:"after"`
}

type jsonScheduleSummary struct {
	Files              int      `json:"files"`
	NodePools          int      `json:"node_pools"`
	NodeClasses        int      `json:"node_classes"`
	Workloads          int      `json:"workloads"`
	Pods               int      `json:"pods"`
	Unschedulable      int      `json:"unschedulable"`
	NodeClaims         int      `json:"node_claims"`
	Errors             int      `json:"errors"`
	Warnings           int      `json:"warnings"`
	FailLevel          string   `json:"fail_level"`
	KarpenterVersion   string   `json:"karpenter_version"`
	AllowUnschedulable []string `json:"allow_unschedulable"`
	DisabledRules      []string `json:"disabled_rules"`
	SkippedChecks      []string `json:"skipped_checks"`
	FailedAWSRequests  []string `json:"failed_aws_requests"`
}

func (d *decision) writeJSON(w io.Writer, r report) error {
	out := jsonSchedule{Version: 1, Tool: jsonTool{Name: "karpenter-lint", Version: toolVersion()}, Pods: map[string]jsonPods{},
		NodeClaims: []jsonNodeClaim{}, ExistingNodes: map[string][]string{}, Skipped: nonNil(d.skipped), NodePools: []jsonPool{}, Findings: nonNil(r.Findings)}
	for _, wl := range d.workloads {
		out.Pods[wl.Key] = jsonPods{Pods: wl.Pods, NodePools: wl.NodePools, Unschedulable: wl.Unschedulable, Reason: wl.Reason}
	}
	claims := func(ncs []scheduling.NodeClaim) []jsonNodeClaim {
		out := []jsonNodeClaim{}
		for _, nc := range ncs {
			out = append(out, jsonNodeClaim{NodePool: nc.NodePool, InstanceTypes: nonNil(nc.InstanceTypes),
				Pods: nonNil(nc.Pods), Zones: nonNil(nc.Zones), CapacityTypes: nonNil(nc.CapacityTypes), Architectures: nonNil(nc.Architectures),
				HourlyPrice: knownPrice(nc.Price, nc.Price.Hourly), HourlyPriceMax: knownPrice(nc.Price, nc.Price.HourlyMax)})
		}
		return out
	}
	out.NodeClaims = claims(d.nodeClaims)
	if b := d.baseline; b != nil {
		out.Baseline = &jsonBaseline{Moves: []jsonMove{}, Added: claims(b.Added), Removed: claims(b.Removed), Cost: costJSON(b.Cost)}
		for _, m := range b.Moves {
			out.Baseline.Moves = append(out.Baseline.Moves, jsonMove{Workload: m.Key, Before: m.Before, After: m.After})
		}
	}
	for _, n := range d.existing {
		out.ExistingNodes[n.Name] = n.Pods
	}
	for _, p := range d.pools {
		out.NodePools = append(out.NodePools, jsonPool{Name: p.Name, LeftOut: p.Skipped})
	}
	out.Cost = costJSON(d.cost)
	pods, unschedulable, _ := d.counts()
	errs, warnings := r.count()
	out.Summary = jsonScheduleSummary{Files: r.Files, NodePools: len(d.pools), NodeClasses: d.classes, Workloads: len(d.workloads),
		Pods: pods, Unschedulable: unschedulable, NodeClaims: len(d.nodeClaims), Errors: errs, Warnings: warnings,
		FailLevel: r.FailLevel.String(), KarpenterVersion: r.Karpenter, AllowUnschedulable: nonNil(d.allow),
		DisabledRules: nonNil(r.Disabled), SkippedChecks: nonNil(r.Skipped), FailedAWSRequests: nonNil(r.Failures)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func knownPrice(p scheduling.Price, v float64) *float64 {
	if !p.Known {
		return nil
	}
	return &v
}
