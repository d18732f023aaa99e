package provider

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// yamlOnly is advice only a manifest's author can act on, which a
// Terraform user must never be given:
//   - lint.karpenter-tf.io/ignore: the manifests' way to keep a value; the
//     provider's is acknowledged_warnings;
//   - karpenter-lint: another tool, for manifests;
//   - "under spec." / "under spec[": where the YAML renderer puts a field
//     (a manifest path), where the provider names its attribute path;
//   - "Write `name: value`": a YAML key and value to write;
//   - a camelCase field then ": " and a literal ("minValues: 2",
//     `amiFamily: "AL2023"`): a YAML line, where HCL writes min_values = 2.
//
// Karpenter's field names in prose ("amiFamily is AL2023", the API server's
// quoted "spec.limits.cpu: Invalid value") are the same for every user and
// are not matched.
var yamlOnly = regexp.MustCompile("lint\\.karpenter-tf\\.io/ignore|karpenter-lint|\\bunder spec[.\\[]|Write `[^`]*: [^`]*`|\\b[a-z]+[A-Z][A-Za-z0-9]*: [0-9\"]")

// The YAML-only words are found in what the manifest front ends say, and
// not in what the provider says for the same fixes, nor in Karpenter's
// names in prose or the API server's quoted errors.
func TestYAMLOnlyAdvice(t *testing.T) {
	for _, s := range []string{
		"If the value as written is meant, say why in the object's lint.karpenter-tf.io/ignore annotation.",
		"Write `memory: ...` under spec.limits.",
		"Write `values: [\"spot\"]` under spec.template.spec.requirements[0].",
		"min_values exceeds: write minValues: 2",
		"run karpenter-lint schedule",
	} {
		if !yamlOnly.MatchString(s) {
			t.Errorf("not YAML-only: %s", s)
		}
	}
	for _, s := range []string{
		`Write limits = { memory = ... }. If the value as written is meant, list "x" in this resource's acknowledged_warnings.`,
		`Write values = ["spot"] in requirements[0].`,
		`the API server rejects the NodePool ("spec.disruption.consolidateAfter: Required value")`,
		"amiFamily is AL2023, so Karpenter renders nodeadm NodeConfig (MIME) userData",
		`Remove "karpenter.sh/do-not-evict" from annotations.`,
	} {
		if yamlOnly.MatchString(s) {
			t.Errorf("found YAML-only (%q) in: %s", yamlOnly.FindString(s), s)
		}
	}
}

// ruleExample is one rule's failing example, renamed to stand beside the
// others in one configuration.
type ruleExample struct {
	rule     *rules.Rule
	body     string // the example without its provider block, renamed
	provider string // the example's provider block, "" for none
	// providerBody is what that block sets; namesAWS that it chooses
	// where AWS is (a region, endpoints, credentials).
	providerBody string
	namesAWS     bool
	version      string // its karpenter_version, when that is all it sets
}

// TestAccRuleExamplesSayNoYAML runs every rule's failing HCL example
// through the provider (terraform validate, then plan for the examples
// validate lets through) and fails on any diagnostic that gives YAML-only
// advice. The examples are batched into one configuration per provider
// block, their resources renamed by rule id, so ~230 examples cost a few
// terraform runs. Examples whose provider block points at AWS in a way the
// emulator does not stand in for (a failing endpoint, a denied role) are
// validated only: their plan-time rules are the AWS failure tests'. What
// the AWS provider would give an example (an EKS cluster's endpoint and CA)
// stands in as locals; examples written for a provider without a cluster
// block run again without one. A rule whose example stays silent fails the
// test unless silentInBatch says why.
func TestAccRuleExamplesSayNoYAML(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	start := time.Now()
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	groups := map[string][]ruleExample{} // by provider block
	var skipped []string
	for _, r := range rules.All() {
		ex, why := renamedExample(r)
		if why != "" {
			skipped = append(skipped, r.ID+" ("+why+")")
			continue
		}
		groups[ex.provider] = append(groups[ex.provider], ex)
	}
	run := inProcessTerraform(t)
	dir := t.TempDir()
	writeMain(t, dir, "")
	run(dir, "init", "-input=false", "-backend=false")

	fired := map[string]bool{}
	runs := 0
	check := func(config string, command ...string) []planDiagnostic {
		writeMain(t, dir, config)
		out, _ := run(dir, command...)
		runs++
		diags := jsonDiagnostics(out)
		for _, d := range diags {
			if id, _, _, ok := rules.ParseSummary(d.Summary); ok {
				fired[id] = true
			}
			if m := yamlOnly.FindString(d.Summary + "\n" + d.Detail); m != "" {
				t.Errorf("YAML-only advice (%q) in %s: %s\n%s", m, command[0], d.Summary, d.Detail)
			}
		}
		return diags
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// group validates a batch of examples, then plans those validate let
	// through.
	group := func(p string, exs []ruleExample) {
		config, spans := batch(p, exs)
		failed := map[int]bool{}
		for _, d := range check(config, "validate", "-json") {
			if d.Severity == "error" && d.Range != nil {
				failed[exampleAt(spans, d.Range.Start.Line)] = true
			}
		}
		var rest []ruleExample
		for i, ex := range exs {
			if !failed[i] && !fired[ex.rule.ID] {
				rest = append(rest, ex)
			}
		}
		if len(rest) > 0 {
			config, _ = batch(p, rest)
			check(config, "plan", "-input=false", "-json", "-refresh=false")
		}
	}
	for _, k := range keys {
		exs := groups[k]
		if k != "" && exs[0].version == "" {
			// Its own provider block: validate as written, then plan
			// with its settings inside the emulator's provider block,
			// unless it names AWS itself (a failing endpoint, a denied
			// role: the AWS failure tests stage those).
			for _, ex := range exs {
				check(ex.provider+ex.body, "validate", "-json")
				if !fired[ex.rule.ID] && !ex.namesAWS {
					group(emulatorProvider(t, ex.providerBody), []ruleExample{ex})
				}
			}
			continue
		}
		p := prov
		if v := exs[0].version; v != "" {
			p = emulatorProvider(t, fmt.Sprintf("karpenter_version = %q\n  cluster { name = \"demo\" }", v))
		}
		group(p, exs)
	}
	// Examples written for a provider without a cluster block (the
	// bootstrap block's missing inputs, a data source's missing Kubernetes
	// version): the cluster's facts fill them in above.
	var clusterless []ruleExample
	for _, ex := range groups[""] {
		if !fired[ex.rule.ID] {
			clusterless = append(clusterless, ex)
		}
	}
	if len(clusterless) > 0 {
		group(emulatorProvider(t, ""), clusterless)
	}
	n := 0
	for _, r := range rules.All() {
		why, listed := silentInBatch[r.ID]
		switch {
		case fired[r.ID]:
			n++
			if listed {
				t.Errorf("%s fired: take it out of silentInBatch (%s)", r.ID, why)
			}
		case !listed:
			t.Errorf("%s: its failing example gave no diagnostic through the provider; make the example fail as written, or say in silentInBatch why it cannot here", r.ID)
		}
	}
	t.Logf("%d rules' failing examples fired through the provider in %d terraform runs (%s); %d examples not run: %s",
		n, runs, time.Since(start).Round(time.Second), len(skipped), strings.Join(skipped, ", "))
}

// silentInBatch are the rules whose failing example gives no diagnostic in
// TestAccRuleExamplesSayNoYAML, and why. Their provider messages are held
// by their own tests.
var silentInBatch = func() map[string]string {
	m := map[string]string{}
	for why, ids := range map[string][]string{
		"a manifest function's example: validate_manifest's findings speak the manifest's language": {
			"v1alpha5-node-template-field", "v1beta1-node-class-ref-api-version", "lint-ignore-in-template",
			"lint-ignore-invalid", "lint-ignore-reason-missing", "manifest-api-version-unsupported",
			"manifest-kind-unknown", "manifest-malformed", "manifest-unknown-field",
		},
		"its provider block chooses where AWS is, failing or absent (the AWS failure tests stage it)": {
			"readiness-checks-skipped", "readiness-read-denied", "aws-config-failed", "aws-endpoint-unreachable",
			"aws-permission-denied", "price-read-denied", "region-unknown", "instance-types-offline-may-match",
			"node-capacity-unavailable", "node-user-data-unavailable", "scheduling-needs-aws",
		},
		"it needs account facts the emulator does not hold (an image of another architecture or owner, a 1.33 cluster)": {
			"alias-al2-unsupported-kubernetes", "ami-no-compatible-image", "ami-term-name-default-owners",
			"ami-terms-one-per-architecture",
		},
		"it reads files, a cluster snapshot or the scheduling data source's overlays": {
			"disruption-arguments-invalid", "scheduling-arguments-invalid", "nodes-will-drift", "nodeoverlay-conflict",
		},
		"a defect of the provider's renderer, not of a configuration": {
			"crd-unknown-field", "crd-validation", "manifest-render-failed",
		},
		"Terraform defers a data source with unknown arguments to apply without asking the provider": {
			"data-source-inputs-unknown",
		},
		"the example elides its 20 KB": {"userdata-too-large"},
		"the provider fills the bootstrap block's missing inputs from the cluster's facts, or asks for those first (cluster-facts-needed); the renderer's tests hold these": {
			"bootstrap-input-missing", "cluster-cidr-missing",
		},
	} {
		for _, id := range ids {
			m[id] = why
		}
	}
	return m
}()

// fixtureClasses are the EC2NodeClasses the docs examples reference
// without declaring (karpenter_ec2nodeclass.<name>.node_class), as the
// nodepool package's example fixtures are.
var fixtureClasses = map[string]string{
	"default":      `  ami_selector_terms { alias = "al2023@latest" }`,
	"al2023":       `  ami_selector_terms { alias = "al2023@latest" }`,
	"bottlerocket": `  ami_selector_terms { alias = "bottlerocket@latest" }`,
	"windows":      `  ami_selector_terms { alias = "windows2022@latest" }`,
	"custom_amd64": customAL2023Class,
	"custom": `  ami_family = "Custom"
  ami_selector_terms { alias = "al2023@latest" }
  bootstrap { format = "nodeadm" }`,
}

// batch is one configuration of the provider block and the examples, with
// the fixtures they reference; spans[i] is the first line of example i.
func batch(provider string, exs []ruleExample) (string, []int) {
	var b strings.Builder
	b.WriteString(provider)
	names := make([]string, 0, len(fixtureClasses))
	for n := range fixtureClasses {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(strings.Replace(classHCL(n, fixtureClasses[n]), `name = "`+n+`"`, `name = "`+strings.ReplaceAll(n, "_", "-")+`"`, 1))
	}
	b.WriteString(poolHCL("default", "karpenter_ec2nodeclass.default.node_class", ""))
	b.WriteString(awsStandIns)
	line := 1 + strings.Count(mainPreamble+b.String(), "\n")
	spans := make([]int, len(exs))
	for i, ex := range exs {
		spans[i] = line
		b.WriteString(ex.body)
		line += strings.Count(ex.body, "\n")
	}
	return b.String(), spans
}

// exampleAt is the index of the example holding line, -1 for the
// fixtures.
func exampleAt(spans []int, line int) int {
	return sort.SearchInts(spans, line+1) - 1
}

// awsStandIns stand in for what the examples take from the AWS provider,
// which these runs do not have (see standInAWS).
const awsStandIns = `
locals {
  eks_cluster = {
    endpoint              = "https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com"
    certificate_authority = [{ data = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFWTVJNd0VRWURWUVFERXdwcmRXSmwKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=" }]
  }
}

resource "terraform_data" "eks_cluster" {
  input = { version = "1.32" }
}
`

// awsRefRE finds references to the AWS provider's EKS cluster, as a data
// source (data.aws_eks_cluster.this) or a resource (aws_eks_cluster.new).
var awsRefRE = regexp.MustCompile(`\b(data\.)?aws_eks_cluster\.[A-Za-z_][A-Za-z0-9_-]*`)

// standInAWS points an example's references to the AWS provider at
// awsStandIns: a data source's attributes are known at plan (a local), a
// resource's are unknown until apply (terraform_data's output).
func standInAWS(src string) string {
	return awsRefRE.ReplaceAllStringFunc(src, func(m string) string {
		if strings.HasPrefix(m, "data.") {
			return "local.eks_cluster"
		}
		return "terraform_data.eks_cluster.output"
	})
}

var refRE = regexp.MustCompile(`\b(data\.)?(karpenter_[a-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_-]*)`)

// renamedExample is r's failing example with each resource and data source
// renamed by the rule id and the references to them rewritten, a fragment
// (arguments and blocks of an EC2NodeClass, as the AMI selection and
// EC2NodeClass examples are written) put in a whole karpenter_ec2nodeclass,
// and what an example leaves out ("# name, role, selector terms ...")
// filled in; why says why it cannot run beside the others ("" when it
// can): a manifest function's example (its output is a manifest's
// findings, not the provider's diagnostics) or blocks that would collide.
func renamedExample(r *rules.Rule) (ruleExample, string) {
	ex := ruleExample{rule: r}
	if strings.Contains(r.Bad, "validate_manifest") {
		return ex, "validate_manifest"
	}
	src := r.Bad
	f, diags := hclwrite.ParseConfig([]byte(src), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		return ex, "not HCL"
	}
	whole := false
	for _, b := range f.Body().Blocks() {
		switch b.Type() {
		case "provider":
			ex.provider += string(b.BuildTokens(nil).Bytes())
			ex.providerBody += string(b.Body().BuildTokens(nil).Bytes())
			attrs := b.Body().Attributes()
			for _, name := range []string{"region", "profile", "shared_config_files", "shared_credentials_files", "endpoints", "assume_role"} {
				if attrs[name] != nil || b.Body().FirstMatchingBlock(name, nil) != nil {
					ex.namesAWS = true
				}
			}
			if v, ok := attrs["karpenter_version"]; ok && len(attrs) == 1 && len(b.Body().Blocks()) == 0 {
				ex.version = strings.Trim(strings.TrimSpace(string(v.Expr().BuildTokens(nil).Bytes())), `"`)
			}
			f.Body().RemoveBlock(b)
		case "resource", "data", "import":
			whole = true
		}
	}
	if rest := strings.TrimSpace(string(f.Bytes())); !whole && rest != "" {
		src = "resource \"karpenter_ec2nodeclass\" \"x\" {\n" + rest + "\n}\n"
		if f, diags = hclwrite.ParseConfig([]byte(src), "example.tf", hcl.InitialPos); diags.HasErrors() {
			return ex, "not HCL"
		}
	}
	suffix := "_" + strings.ReplaceAll(r.ID, "-", "_")
	declared := map[string]bool{}
	for _, b := range f.Body().Blocks() {
		switch b.Type() {
		case "resource", "data":
			l := b.Labels()
			key := l[0] + "." + l[1]
			if b.Type() == "data" {
				key = "data." + key
			}
			declared[key] = true
			b.SetLabels([]string{l[0], l[1] + suffix})
			if b.Type() == "resource" {
				fillRequired(l[0], b.Body())
			}
		case "import":
			// Left as written: it imports one of batch's fixtures.
		default:
			return ex, "a " + b.Type() + " block"
		}
	}
	ex.body = "\n" + standInAWS(refRE.ReplaceAllStringFunc(string(f.Bytes()), func(m string) string {
		if declared[m] {
			return m + suffix
		}
		return m
	})) + "\n"
	return ex, ""
}

// fillRequired adds to a karpenter_ec2nodeclass or karpenter_nodepool what
// it needs and does not set: a name, a role, selector terms, a class.
func fillRequired(typ string, b *hclwrite.Body) {
	has := func(name string) bool {
		if b.GetAttribute(name) != nil {
			return true
		}
		for _, blk := range b.Blocks() {
			if blk.Type() == name {
				return true
			}
		}
		return false
	}
	discovery := cty.MapVal(map[string]cty.Value{"karpenter.sh/discovery": cty.StringVal("demo")})
	switch typ {
	case "karpenter_ec2nodeclass":
		// An example that names its class is written whole: what it
		// leaves out is its mistake (selector-terms-count, ami-terms-count).
		if has("name") {
			return
		}
		b.SetAttributeValue("name", cty.StringVal("default"))
		if !has("role") && !has("instance_profile") {
			b.SetAttributeValue("role", cty.StringVal("KarpenterNodeRole-demo"))
		}
		if !has("subnet_selector_terms") && !has("security_group_selector_terms") {
			for _, blk := range []string{"subnet_selector_terms", "security_group_selector_terms"} {
				b.AppendNewBlock(blk, nil).Body().SetAttributeValue("tags", discovery)
			}
		}
		if !has("ami_selector_terms") {
			// The family's alias, as a fragment's "selector terms ..."
			// means; Custom has none, so an image the emulator serves.
			term, value := "alias", "al2023@latest"
			if a := b.GetAttribute("ami_family"); a != nil {
				f, _ := amifamily.Parse(strings.Trim(strings.TrimSpace(string(a.Expr().BuildTokens(nil).Bytes())), `"`))
				if name := f.AliasName(); name != "" {
					value = name + "@latest"
				} else {
					term, value = "id", "ami-0aaf333b614a08570"
				}
			}
			b.AppendNewBlock("ami_selector_terms", nil).Body().SetAttributeValue(term, cty.StringVal(value))
		}
	case "karpenter_nodepool":
		if !has("name") {
			b.SetAttributeValue("name", cty.StringVal("default"))
		}
		if !has("node_class") {
			b.SetAttributeTraversal("node_class", hcl.Traversal{hcl.TraverseRoot{Name: "karpenter_ec2nodeclass"},
				hcl.TraverseAttr{Name: "default"}, hcl.TraverseAttr{Name: "node_class"}})
		}
	}
}
