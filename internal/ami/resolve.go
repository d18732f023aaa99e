package ami

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Source is the AWS the resolver needs; *awsclient.Cache implements it.
type Source interface {
	GetParameters(ctx context.Context, names []string) (map[string]awsclient.Parameter, error)
	DescribeImages(ctx context.Context, q awsclient.ImageQuery) ([]awsclient.Image, error)
}

// Resolver resolves selector terms against a Source.
type Resolver struct {
	Source Source
	// Now decides deprecation; time.Now when nil.
	Now func() time.Time
}

// Request is what a resolution depends on.
type Request struct {
	Terms      []Term
	Kubernetes versions.Kubernetes
	Karpenter  versions.Karpenter
}

// AMI is one entry of what Karpenter would put in status.amis.
type AMI struct {
	ID           string
	Name         string
	OwnerID      string
	CreationDate string
	// Architecture is the Kubernetes architecture (amd64/arm64).
	Architecture string
	// Variant is the alias variant the entry serves, "" for non-alias terms.
	Variant    amifamily.Variant
	Deprecated bool
	// Requirements, sorted as Karpenter's status (key length, then key).
	Requirements []Requirement
	// Image is the full EC2 record (block devices, tags, description).
	Image awsclient.Image
}

// Skipped is an image a selector matched that Karpenter would not use.
type Skipped struct {
	ID     string
	Name   string
	State  string
	Reason string
}

// Lookup records one SSM parameter or DescribeImages query tried, for
// messages that say what was asked and what came back.
type Lookup struct {
	What   string
	Result string
}

// Result is the outcome of a resolution.
type Result struct {
	// Alias is set when the terms resolved through an alias.
	Alias *Alias
	AMIs  []AMI
	// Skipped is sorted by ID.
	Skipped []Skipped
	Lookups []Lookup
	// Findings holds errors (nothing usable matched) and warnings.
	Findings rules.Findings
}

// behaviour captures what changed across Karpenter releases in resolution.
type behaviour struct {
	stateFilter       bool // state=available since 1.3.0 and 1.2.2 (PR #7672)
	includeDeprecated bool // IncludeDeprecated since 1.1.0 (PR #6500)
}

func behaviourOf(kv versions.Karpenter) behaviour {
	return behaviour{
		stateFilter:       kv.AtLeast(3, 0) || (kv.Minor == 2 && kv.AtLeast(2, 2)),
		includeDeprecated: kv.AtLeast(1, 0),
	}
}

// query is one DescribeImages query with what Karpenter knows about the
// images it may return.
type query struct {
	awsclient.ImageQuery
	// known maps image id to the variant requirement sets from SSM (aliases).
	known map[string][][]Requirement
	// variants maps image id to the variants those sets are for.
	variants map[string][]amifamily.Variant
	// terms are the indexes of the terms the query came from.
	terms []int
	// termsOf, for the one query of every id and ssmParameter term
	// (Karpenter sends their ids in a single image-id filter), maps an
	// image id to the terms that name it: an image is matched by those
	// terms only, not by every term of the query.
	termsOf map[string][]int
}

// termsFor are the terms that matched img.
func (q query) termsFor(img string) []int {
	if q.termsOf != nil {
		return q.termsOf[img]
	}
	return q.terms
}

// Resolve returns what Karpenter would put in status.amis for the terms, and
// every image it would not use with the reason. AWS errors are returned as
// errors; "nothing usable matched" is an error finding in the result.
func (r *Resolver) Resolve(ctx context.Context, req Request) (Result, error) {
	var res Result
	queries, err := r.queries(ctx, req, &res)
	if err != nil || res.Findings.HasErrors() {
		return res, err
	}
	b := behaviourOf(req.Karpenter)
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}

	// Each distinct query is sent once, without the state filter, so images in
	// other states can be reported; what Karpenter's own query (state=available)
	// would return is that answer filtered by state, which is exact since the
	// filter matches the state value. Before Karpenter 1.1 the query also left
	// deprecated images out, which EC2 decides (owners see their own
	// deprecated images regardless), so there it is sent as Karpenter sends it
	// too. Answers are cached per distinct query: N resources cost one call.
	selected := make([][]awsclient.Image, len(queries))
	everything := make([][]awsclient.Image, len(queries))
	g, gctx := errgroup.WithContext(ctx)
	for i, q := range queries {
		g.Go(func() error {
			dq := q.ImageQuery
			dq.IncludeDeprecated = true
			dq.IncludeDisabled = true // to report them; Karpenter never sees them
			imgs, err := r.Source.DescribeImages(gctx, dq)
			everything[i] = imgs
			if err == nil && b.includeDeprecated {
				selected[i] = imgs
				if b.stateFilter {
					selected[i] = available(imgs)
				}
			}
			return err
		})
		if !b.includeDeprecated {
			g.Go(func() error {
				kq := q.ImageQuery
				if b.stateFilter {
					kq.Filters = append(append([]awsclient.Filter(nil), kq.Filters...), awsclient.Filter{Name: "state", Values: []string{"available"}})
				}
				imgs, err := r.Source.DescribeImages(gctx, kq)
				selected[i] = imgs
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return res, err
	}

	picker := newPicker(now)
	for i, q := range queries {
		res.Lookups = append(res.Lookups, Lookup{What: "ec2:DescribeImages " + describe(q.ImageQuery, b), Result: countImages(everything[i], selected[i])})
		for _, img := range selected[i] {
			arch, ok := kubeArch(img.Architecture)
			if !ok {
				picker.skip(img, fmt.Sprintf("architecture %q is not supported: Karpenter drops images that are not x86_64 or arm64", img.Architecture))
				continue
			}
			sets, variants := q.known[img.ID], q.variants[img.ID]
			if sets == nil {
				sets, variants = [][]Requirement{nil}, []amifamily.Variant{""}
			}
			for j, set := range sets {
				picker.offer(img, arch, variants[j], withArch(set, arch), q.termsFor(img.ID))
			}
		}
	}
	res.AMIs = picker.result()
	res.Skipped = picker.skipped(everything, selected)
	res.Findings = append(res.Findings, r.outcomeFindings(req, b, &res, picker)...)
	if len(res.AMIs) > 0 {
		res.Findings = append(res.Findings, emptyNameTerms(req.Terms, queries, everything)...)
	}
	return res, nil
}

// emptyNameTerms warns about a name term without owner that matched no
// image while other terms did (when nothing matched, ami-not-found says the
// same): Karpenter sends it with Owners [self, amazon], so an image shared
// from another account is never found by it.
func emptyNameTerms(terms []Term, queries []query, everything [][]awsclient.Image) rules.Findings {
	var fs rules.Findings
	for i, q := range queries {
		if len(everything[i]) > 0 {
			continue
		}
		for _, t := range q.terms {
			if term := terms[t]; term.Name != "" && term.Owner == "" && term.ID == "" && term.SSMParameter == "" {
				fs = append(fs, rules.New(RuleNameWithoutOwner, TermsPath.Index(t).Attr("name"),
					"the term with name %q matched no image. A name term without owner is sent with Owners [self, amazon] (Karpenter's default), so an image owned by another account and shared with yours is never found by it. If the image belongs to another account, add `owner = \"<account id>\"`; otherwise the term selects nothing and can be removed.",
					term.Name))
			}
		}
	}
	return fs
}

// available is what a state=available filter leaves of imgs.
func available(imgs []awsclient.Image) []awsclient.Image {
	out := make([]awsclient.Image, 0, len(imgs))
	for _, img := range imgs {
		if img.State == "available" {
			out = append(out, img)
		}
	}
	return out
}

// queries turns the terms into DescribeImages queries
// (A:pkg/providers/amifamily/ami.go DescribeImageQueries).
func (r *Resolver) queries(ctx context.Context, req Request, res *Result) ([]query, error) {
	if i, ok := AliasTerm(req.Terms); ok {
		return r.aliasQuery(ctx, req, i, res)
	}
	var out []query
	idQuery := query{terms: nil, termsOf: map[string][]int{}}
	var ids []string
	var ssmNames []string
	ssmTerm := map[string][]int{}
	for i, t := range req.Terms {
		switch {
		case t.ID != "":
			ids = append(ids, t.ID)
			idQuery.terms = append(idQuery.terms, i)
			idQuery.termsOf[t.ID] = append(idQuery.termsOf[t.ID], i)
		case t.SSMParameter != "":
			if _, seen := ssmTerm[t.SSMParameter]; !seen {
				ssmNames = append(ssmNames, t.SSMParameter)
			}
			ssmTerm[t.SSMParameter] = append(ssmTerm[t.SSMParameter], i)
		default:
			q := query{terms: []int{i}}
			if t.Owner != "" {
				q.Owners = []string{t.Owner}
			}
			if t.Name != "" {
				if t.Owner == "" {
					q.Owners = []string{"self", "amazon"}
				}
				q.Filters = append(q.Filters, awsclient.Filter{Name: "name", Values: []string{t.Name}})
			}
			keys := make([]string, 0, len(t.Tags))
			for k := range t.Tags {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if v := t.Tags[k]; v == "*" {
					q.Filters = append(q.Filters, awsclient.Filter{Name: "tag-key", Values: []string{k}})
				} else {
					q.Filters = append(q.Filters, awsclient.Filter{Name: "tag:" + k, Values: []string{v}})
				}
			}
			out = append(out, q)
		}
	}
	if len(ssmNames) > 0 {
		params, err := r.Source.GetParameters(ctx, ssmNames)
		if err != nil {
			return nil, fmt.Errorf("resolving ssm parameter, %w", err)
		}
		for _, n := range ssmNames {
			p := params[n]
			switch {
			case !p.Found:
				// ParameterNotFound: Karpenter skips the term.
				res.Lookups = append(res.Lookups, Lookup{What: "ssm:GetParameter " + n, Result: "not found (Karpenter skips the term)"})
			case !strings.HasPrefix(p.Value, "ami-"):
				res.Lookups = append(res.Lookups, Lookup{What: "ssm:GetParameter " + n, Result: fmt.Sprintf("value %q is not an AMI id (Karpenter skips the term: \"parameter value is an invalid AMI ID\")", p.Value)})
			default:
				res.Lookups = append(res.Lookups, Lookup{What: "ssm:GetParameter " + n, Result: p.Value})
				ids = append(ids, p.Value)
				idQuery.terms = append(idQuery.terms, ssmTerm[n]...)
				idQuery.termsOf[p.Value] = append(idQuery.termsOf[p.Value], ssmTerm[n]...)
			}
		}
	}
	if len(ids) > 0 {
		idQuery.Filters = []awsclient.Filter{{Name: "image-id", Values: dedupeSorted(ids)}}
		out = append(out, idQuery)
	}
	return out, nil
}

func (r *Resolver) aliasQuery(ctx context.Context, req Request, i int, res *Result) ([]query, error) {
	p := TermsPath.Index(i).Attr(FieldAlias)
	a, fs := ParseAlias(req.Terms[i].Alias, req.Karpenter, p)
	res.Findings = append(res.Findings, fs...)
	if fs.HasErrors() {
		return nil, nil
	}
	res.Alias = &a
	pqs, fs := SSMParameters(a, req.Kubernetes, req.Karpenter, p)
	res.Findings = append(res.Findings, fs...)
	if fs.HasErrors() {
		return nil, nil
	}
	params, err := r.Source.GetParameters(ctx, ParameterNames(pqs))
	if err != nil {
		return nil, fmt.Errorf("resolving alias %s: %w", a, err)
	}
	q := query{known: map[string][][]Requirement{}, variants: map[string][]amifamily.Variant{}, terms: []int{i}}
	var ids []string
	for _, pq := range pqs {
		prm := params[pq.Name]
		if !prm.Found {
			res.Lookups = append(res.Lookups, Lookup{What: "ssm:GetParameters " + pq.Name, Result: "not found (that variant does not exist)"})
			continue
		}
		res.Lookups = append(res.Lookups, Lookup{What: "ssm:GetParameters " + pq.Name, Result: prm.Value})
		id := prm.Value
		if _, seen := q.known[id]; !seen {
			ids = append(ids, id)
		}
		if pq.Variants == nil {
			// Windows: one image, OS and build requirements, no variant split.
			m := a.Family.Model()
			q.known[id] = append(q.known[id], []Requirement{
				{Key: LabelOS, Operator: OpIn, Values: []string{m.OS()}},
				{Key: LabelWindowsBuild, Operator: OpIn, Values: []string{m.WindowsBuild()}},
			})
			q.variants[id] = append(q.variants[id], "")
			continue
		}
		for _, v := range pq.Variants {
			q.known[id] = append(q.known[id], variantRequirements(v, req.Karpenter))
			q.variants[id] = append(q.variants[id], v)
		}
	}
	if len(ids) == 0 {
		res.Findings = append(res.Findings, r.aliasNotResolved(ctx, a, req, p, res)...)
		return nil, nil
	}
	q.Filters = []awsclient.Filter{{Name: "image-id", Values: dedupeSorted(ids)}}
	return []query{q}, nil
}

func kubeArch(ec2Arch string) (string, bool) {
	switch ec2Arch {
	case "x86_64":
		return "amd64", true
	case "arm64":
		return "arm64", true
	}
	return "", false
}

func withArch(set []Requirement, arch string) []Requirement {
	out := append([]Requirement{{Key: LabelArch, Operator: OpIn, Values: []string{arch}}}, set...)
	sortRequirements(out)
	return out
}

// sortRequirements orders as the nodeclass controller writes status: by key
// length, then key (A:pkg/controllers/nodeclass/ami.go).
func sortRequirements(rs []Requirement) {
	sort.SliceStable(rs, func(i, j int) bool {
		if len(rs[i].Key) != len(rs[j].Key) {
			return len(rs[i].Key) < len(rs[j].Key)
		}
		return rs[i].Key < rs[j].Key
	})
}

// requirementsKey is a canonical form of a requirement set, standing in for
// Karpenter's hashstructure with SlicesAsSets.
func requirementsKey(rs []Requirement) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		vs := append([]string(nil), r.Values...)
		sort.Strings(vs)
		parts[i] = r.Key + " " + r.Operator + " " + strings.Join(vs, ",")
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

// describe is the query as Karpenter sends it. The provider sends it without
// the state filter and applies that to the answer (Resolve), which is the
// same question, so the message shows Karpenter's.
func describe(q awsclient.ImageQuery, b behaviour) string {
	var parts []string
	if len(q.Owners) > 0 {
		parts = append(parts, "owners="+strings.Join(q.Owners, ","))
	}
	for _, f := range q.Filters {
		parts = append(parts, f.Name+"="+strings.Join(f.Values, ","))
	}
	if b.stateFilter {
		parts = append(parts, "state=available")
	}
	return "(" + strings.Join(parts, " ") + ", as Karpenter asks it)"
}

func countImages(all, selected []awsclient.Image) string {
	if len(all) == len(selected) {
		return fmt.Sprintf("%d image(s)", len(selected))
	}
	return fmt.Sprintf("%d image(s) usable of %d matching", len(selected), len(all))
}

func dedupeSorted(in []string) []string { return slices.Compact(slices.Sorted(slices.Values(in))) }

// The rules the checks of this file emit.
var (
	RuleNameWithoutOwner = rules.Register(rules.Rule{
		ID: "ami-term-name-default-owners", Severity: rules.Warning, Category: category,
		Title:     "a name term without `owner` only searches your account and Amazon",
		Behaviour: "A term with `name` and no `owner` is sent with Owners [self, amazon], so an image shared from another account is never found even though its name matches. The provider warns when such a term matches no image while other terms do (when no term matches, `ami-not-found` gives the same advice).",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries",
		Bad:       custom("# the image is owned by account 111122223333", term(`name = "shared-eks-node-*"`)),
		Good:      custom(term(`name = "shared-eks-node-*"`, `owner = "111122223333"`)),
	})
)
