package manifestcheck

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Input is one stream of documents: a file, standard input, or the string
// given to validate_manifest.
type Input struct {
	// Name names the input in findings (a path, "-" for standard input);
	// "" for validate_manifest's single string.
	Name string
	Text string
	// Context marks an input read only for the EC2NodeClasses the other
	// inputs' NodePools name (karpenter-lint --classes-from, the
	// pre-commit hook's repository): such a class is checked, and its
	// pools are cross-checked with it, but nothing of the input is
	// reported or counted.
	Context bool
}

// Options say what to check the inputs against.
type Options struct {
	Karpenter versions.Karpenter
	// AWS, when set, adds the checks that need the account's facts: the
	// images the AMI selector terms resolve to, the class's readiness
	// (subnets, security groups, role or instance profile, capacity
	// reservations), and the region's instance types instead of the
	// embedded family facts. Nil checks offline.
	AWS *awsclient.Cache
	// Kubernetes is the cluster's minor version ("1.32"), which alias
	// terms need (their SSM parameters are per minor); with Cluster
	// instead it is read with eks:DescribeCluster. With neither, classes
	// with an alias are not resolved.
	Kubernetes string
	Cluster    string
	// FeatureGates are the Karpenter controller's gates the cluster runs
	// with; NodeOverlays are checked as ignored while NodeOverlay is off.
	FeatureGates coreoptions.FeatureGates
	// GateHow is nodeoverlay.GateHow of the caller's front end, for the
	// findings; "" is the provider's.
	GateHow string
}

// Finding is one result on a manifest.
type Finding struct {
	Rule     *rules.Rule
	Severity rules.Severity
	// Path is the field of the manifest, as the API server prints field
	// paths ("spec.amiSelectorTerms[0].alias", "spec.tags[team]"); "" is
	// the whole document.
	Path    string
	Message string
	// Object is "<kind>/<name>" of the document ("NodePool/general"), ""
	// when the document is not an object.
	Object string
	// Input is the name of the input the document is in.
	Input string
	// Line and Column locate Path's YAML node in the input (1-based): a
	// field that is missing is located at its nearest ancestor.
	Line, Column int
	// Source and SourceLine are the file and line a `# Source:` comment
	// (helm template) maps Line to; "" and 0 without one.
	Source     string
	SourceLine int
	// Suppressed is the reason of the lint.karpenter-tf.io/ignore
	// annotation that silences the finding; "" when it is reported.
	Suppressed string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s at %q: %s", f.Severity, f.Rule.ID, f.Path, f.Message)
}

// Where is the file and line a reader opens: the `# Source:` file when the
// document names one, else the input.
func (f Finding) Where() (file string, line int) {
	if f.Source != "" {
		return f.Source, f.SourceLine
	}
	return f.Input, f.Line
}

// Document describes one non-empty document of the inputs.
type Document struct {
	Input string
	Line  int
	// Source is the `# Source:` file of the document, SourceLine the line
	// of its first line there.
	Source     string
	SourceLine int
	APIVersion string
	Kind       string
	Name       string
	// Checked is set for the EC2NodeClass, NodePool and NodeOverlay
	// documents this package checks; Malformed for a document that is not an object;
	// Refused for a Karpenter object that cannot be one of them (a removed
	// API version, a misspelled kind), which has a finding saying so.
	Checked, Malformed, Refused bool

	context bool
}

// Object is "<kind>/<name>", or the kind alone when the name is missing.
func (d Document) Object() string {
	switch {
	case d.Kind == "":
		return ""
	case d.Name == "":
		return d.Kind
	}
	return d.Kind + "/" + d.Name
}

// Result is everything a run found.
type Result struct {
	// Findings are in input and document order, suppressed ones included.
	Findings  []Finding
	Documents []Document
	// Skipped says which checks were not made, and why.
	Skipped []string
	// Failures are AWS requests that failed: the checks that needed them
	// were not made.
	Failures []error
	// Uncrossed are the EC2NodeClass names NodePools refer to that no
	// input (context inputs included) defines exactly once: those pools'
	// cross-checks were not made.
	Uncrossed []string
}

// item is one document on its way through a run.
type item struct {
	input string
	doc   document
	desc  *Document
	obj   map[string]any
	raw   []byte
	// context is set for a class read from a context input.
	context bool
	// kind is set for the documents checked.
	kind     string
	class    *nodeclass.Class
	aws      *ClassAWS
	findings []Finding
}

// Run checks the documents of every input together: a NodePool is
// cross-checked with the EC2NodeClass its nodeClassRef names when that
// class is among the inputs (in the same input first, then in the same
// directory, then anywhere if only one input defines it).
func Run(ctx context.Context, inputs []Input, opt Options) Result {
	var res Result
	var items []*item
	var context []*item
	for _, in := range inputs {
		for _, d := range split(in.Text) {
			it := decodeItem(in.Name, d)
			if in.Context {
				context = append(context, it)
			} else {
				items = append(items, it)
			}
		}
	}
	items = append(items, neededClasses(items, context)...)
	res.Documents = make([]Document, len(items))
	for i, it := range items {
		res.Documents[i] = *it.desc
		it.desc = &res.Documents[i]
	}
	kv := opt.Karpenter
	cat, note := readClasses(ctx, items, opt, &res)
	if opt.AWS == nil {
		note = offlineSkipped
	}
	if note != "" {
		res.Skipped = append(res.Skipped, note)
	}
	regionOfferings := &offerings{aws: opt.AWS, res: &res}
	unmatched := map[string]bool{}
	for _, it := range items {
		switch it.kind {
		case manifest.EC2NodeClassKind:
			it.findings = append(it.findings, checkClass(ctx, it.obj, it.aws)...)
		case manifest.NodePoolKind:
			var facts nodepool.ClassFacts
			var zones *zoneFacts
			if name, ok := poolClass(it.raw); ok {
				if c := classFor(items, it, name); c != nil {
					if c.aws.ReadinessRead() {
						zones = &zoneFacts{subnets: c.aws.Readiness.Result.Subnets, region: regionOfferings}
					}
					var amis []ami.AMI
					if c.aws.imagesUsable() {
						amis = c.aws.AMIs.AMIs
					}
					facts = classFacts(*c.class, amis, kv)
				} else {
					unmatched[name] = true
				}
			}
			it.findings = append(it.findings, checkPool(ctx, it.obj, it.raw, facts, zones, cat, kv)...)
		case nodeoverlay.Kind:
			it.findings = append(it.findings, checkOverlay(ctx, it.obj, opt)...)
		}
		if !it.context {
			res.Findings = append(res.Findings, it.finish()...)
		}
	}
	res.Documents = slices.DeleteFunc(res.Documents, func(d Document) bool { return d.context })
	if len(unmatched) > 0 {
		res.Uncrossed = slices.Sorted(maps.Keys(unmatched))
		res.Skipped = append(res.Skipped, fmt.Sprintf("the NodePool/EC2NodeClass cross-checks (architectures and GPUs against the class's family and images, Custom userData taints) of the NodePools whose EC2NodeClass is not among the inputs, or is defined in several: \"%s\"",
			strings.Join(slices.Sorted(maps.Keys(unmatched)), `", "`)))
	}
	return res
}

const offlineSkipped = "checks that need AWS (the images the AMI selector terms resolve to, subnets, security groups, the role or instance profile, capacity reservations, the region's instance types): offline, the embedded instance-family facts were used"

// decodeItem decodes a document and says what it is.
func decodeItem(input string, d document) *item {
	it := &item{input: input, doc: d, desc: &Document{Input: input, Line: d.line, Source: d.source}}
	if d.source != "" {
		it.desc.SourceLine = max(d.sourceLine, 1)
	}
	obj, raw, err := decode(d)
	if err != nil {
		f := Finding{Rule: ruleMalformed, Severity: ruleMalformed.Severity,
			Message: err.Error() + ". kubectl, Helm and Argo CD refuse the document, and nothing in it was checked."}
		if m, ok := err.(*malformed); ok {
			f.Line = m.line
		}
		it.desc.Malformed = true
		it.findings = []Finding{f}
		return it
	}
	it.obj, it.raw = obj, raw
	it.desc.APIVersion, _ = obj["apiVersion"].(string)
	it.desc.Kind, _ = obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	it.desc.Name, _ = meta["name"].(string)
	kind, f, ok := classify(obj)
	if f != nil {
		// An older API version or kind: nothing else is checked, but the
		// fields the migration moves are named at their lines.
		it.findings = append(append(it.findings, *f), oldFields(obj)...)
		it.desc.Refused = true
	}
	if !ok {
		return it
	}
	it.kind = kind
	it.desc.Checked = true
	if kind == manifest.EC2NodeClassKind {
		if m, err := decodeClass(raw); err == nil {
			c := nodeclass.FromManifest(m)
			it.class = &c
		}
	}
	return it
}

// neededClasses are the EC2NodeClasses of the context inputs that the
// NodePools of items name, marked as context.
func neededClasses(items, context []*item) []*item {
	named := map[string]bool{}
	for _, it := range items {
		if it.kind == manifest.NodePoolKind {
			if name, ok := poolClass(it.raw); ok {
				named[name] = true
			}
		}
	}
	var out []*item
	for _, it := range context {
		if it.class != nil && named[it.class.Name] {
			it.context, it.desc.context = true, true
			out = append(out, it)
		}
	}
	return out
}

// classFor finds the EC2NodeClass named name for the pool it: in the same
// file (the `# Source:` file of a helm stream), else the only one in the
// same directory, else the only one.
func classFor(items []*item, pool *item, name string) *item {
	var same, dir, all []*item
	for _, it := range items {
		if it.class == nil || it.class.Name != name {
			continue
		}
		all = append(all, it)
		if it.file() == pool.file() {
			same = append(same, it)
		}
		if path.Dir(it.file()) == path.Dir(pool.file()) {
			dir = append(dir, it)
		}
	}
	for _, c := range [][]*item{same, dir, all} {
		if len(c) == 1 || (len(c) > 1 && c[0].file() == pool.file()) {
			return c[0]
		}
	}
	return nil
}

// file is the document's file: its `# Source:` file, else its input.
func (it *item) file() string {
	if it.doc.source != "" {
		return it.doc.source
	}
	return it.input
}

// finish locates the item's findings, names their object and source, drops
// repeats and applies the object's ignore annotation.
func (it *item) finish() []Finding {
	var ig *ignore
	if it.obj != nil && it.kind != "" {
		var fs []Finding
		ig, fs = suppress(it.obj)
		it.findings = append(it.findings, fs...)
	}
	if len(it.findings) == 0 {
		return nil
	}
	n := parseNodes(it.doc)
	seen := map[string]bool{}
	out := make([]Finding, 0, len(it.findings))
	for _, f := range it.findings {
		k := f.Rule.ID + "\x00" + f.Path + "\x00" + f.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		f.Input, f.Object = it.input, it.desc.Object()
		if f.Line == 0 {
			p := n.locate(f.Path)
			f.Line, f.Column = p.line, p.column
		} else {
			f.Column = 1
		}
		if it.doc.source != "" {
			f.Source, f.SourceLine = it.doc.source, max(f.Line-it.doc.line+it.doc.sourceLine, 1)
		}
		if ig.applies(f) {
			f.Suppressed = ig.reason
		}
		out = append(out, f)
	}
	return out
}
