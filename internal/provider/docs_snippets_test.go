package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/config"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// The HCL in the provider page and the guides is tested here, block by
// block, as a reader would use it: every ```terraform block of those pages
// must be used by a scenario below (and be `terraform fmt` clean), and each
// scenario plans or applies the blocks against the in-process emulator.
// Other providers' resources the pages feed (kubectl_manifest,
// kubernetes_manifest, helm_release, local_file) are served by in-process
// stubs with the attributes the pages use; module.eks and module.karpenter
// are stub modules with the outputs terraform-aws-modules/eks has.

// snippetPages are the templates whose HCL blocks must all be tested.
var snippetPages = []string{
	"index.md.tmpl",
	"guides/migrating-from-kubectl-manifest.md.tmpl",
	"guides/ami-rollouts.md.tmpl",
}

type snippetStep struct {
	// blocks name the page's blocks to join, each by a substring that
	// occurs in exactly one block of the page.
	blocks []string
	// edit is the reader's next change to the joined blocks.
	edit func(string) string
	// before serves fixtures in which al2023@latest is still v20251112, as
	// before EKS published v20251209.
	before      bool
	planOnly    bool
	nonEmpty    bool
	expectError string
	planChecks  []plancheck.PlanCheck // before apply (after the plan, for planOnly)
	stateChecks []statecheck.StateCheck
	check       tfresource.TestCheckFunc
}

type snippetScenario struct {
	name  string
	page  string
	steps []snippetStep
	// namespace is TF_ACC_PROVIDER_NAMESPACE, for blocks naming
	// karpenter-tf/karpenter in required_providers.
	namespace string
}

func snippetScenarios() []snippetScenario {
	const (
		idx       = "index.md.tmpl"
		migrating = "guides/migrating-from-kubectl-manifest.md.tmpl"
		rollouts  = "guides/ami-rollouts.md.tmpl"
	)
	classAndPool := `resource "karpenter_nodepool" "gpu"`
	pinned := `al2023_release = "v20251112"`
	withoutKubectl := func(s string) string {
		return regexp.MustCompile(`(?s)resource "kubectl_manifest" "\w+" \{.*?\n\}\n`).ReplaceAllString(s, "")
	}
	bump := func(s string) string { return strings.Replace(s, pinned, `al2023_release = "v20251209"`, 1) }
	return []snippetScenario{
		{name: "required_providers", page: idx, namespace: "karpenter-tf", steps: []snippetStep{
			{blocks: []string{`source  = "karpenter-tf/karpenter"`}, planOnly: true},
		}},
		{name: "emulator endpoints", page: idx, steps: []snippetStep{
			{blocks: []string{`ec2 = "http://127.0.0.1:4566"`}, planOnly: true},
		}},
		{name: "cluster from module.eks", page: idx, steps: []snippetStep{{
			blocks: []string{`kubernetes_version    = module.eks.cluster_version`, classAndPool},
			planChecks: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("karpenter_nodepool.gpu", tfjsonpath.New("ami_assignments").AtMapKey("arm64/nvidia"),
					assignmentOf("amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209")),
			},
		}}},
		{name: "appliers", page: idx, steps: []snippetStep{{
			blocks: []string{classAndPool, `resource "kubernetes_manifest"`, `resource "kubectl_manifest"`, `resource "helm_release"`, `resource "local_file"`},
			planChecks: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("kubectl_manifest.karpenter_node_pool_gpu", tfjsonpath.New("yaml_body"),
					knownvalue.StringRegexp(regexp.MustCompile(`(?m)^kind: NodePool\n(.*\n)*        name: default$`))),
				plancheck.ExpectKnownValue("kubernetes_manifest.karpenter_node_class", tfjsonpath.New("manifest").AtMapKey("spec").AtMapKey("amiSelectorTerms").AtSliceIndex(0).AtMapKey("alias"),
					knownvalue.StringExact("al2023@v20251209")),
				plancheck.ExpectKnownValue("local_file.karpenter", tfjsonpath.New("content"),
					knownvalue.StringRegexp(regexp.MustCompile(`(?s)^apiVersion: karpenter.k8s.aws/v1\n.*\n---\napiVersion: karpenter.sh/v1\n`))),
				plancheck.ExpectKnownValue("helm_release.karpenter_nodes", tfjsonpath.New("values").AtSliceIndex(0),
					knownvalue.StringRegexp(regexp.MustCompile(`(?s)^"manifests":\n- \|\n  apiVersion: karpenter.k8s.aws/v1\n.*- \|\n  apiVersion: karpenter.sh/v1\n`))),
			},
		}}},
		{name: "migration keeps the cluster objects", page: migrating, steps: []snippetStep{
			{blocks: []string{"yaml_body = <<-YAML"}},
			{
				blocks: []string{`yaml_body  = karpenter_ec2nodeclass.default.manifest`},
				planChecks: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("karpenter_ec2nodeclass.default", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("karpenter_nodepool.default", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("kubectl_manifest.karpenter_node_class", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kubectl_manifest.karpenter_node_pool", plancheck.ResourceActionUpdate),
					// Field by field the same objects: only formatting differs.
					sameYAMLObject{"kubectl_manifest.karpenter_node_class"},
					sameYAMLObject{"kubectl_manifest.karpenter_node_pool"},
				},
				check: stubNotDeleted("kubectl_manifest"),
			},
			{
				// Changing the applier: the kubectl_manifest resources leave the
				// configuration and the state, the cluster objects stay.
				blocks: []string{`yaml_body  = karpenter_ec2nodeclass.default.manifest`, `from = kubectl_manifest.karpenter_node_class`},
				edit:   withoutKubectl,
				check:  tfresource.ComposeTestCheckFunc(stubNotDeleted("kubectl_manifest"), notInState("kubectl_manifest.")),
			},
		}},
		{name: "coming from v1beta1", page: migrating, steps: []snippetStep{
			{blocks: []string{"apiVersion: karpenter.k8s.aws/v1beta1"}},
			{
				// The old resources are forgotten, the v1 manifests applied by
				// new ones: nothing is deleted in the cluster.
				blocks: []string{`resource "kubectl_manifest" "karpenter_node_class_v1"`, `from = kubectl_manifest.karpenter_node_class`},
				planChecks: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubectl_manifest.karpenter_node_class_v1", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("kubectl_manifest.karpenter_node_pool_v1", plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.default", tfjsonpath.New("manifest"),
						knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  kubelet:\n    maxPods: 110\n`))),
					plancheck.ExpectKnownValue("karpenter_nodepool.default", tfjsonpath.New("manifest"),
						knownvalue.StringRegexp(regexp.MustCompile(`(?s)\n    consolidateAfter: 0s\n    consolidationPolicy: WhenEmptyOrUnderutilized\n.*\n      expireAfter: 720h\n`))),
				},
				check: tfresource.ComposeTestCheckFunc(stubNotDeleted("kubectl_manifest"),
					notInState("kubectl_manifest.karpenter_node_class", "kubectl_manifest.karpenter_node_pool")),
			},
		}},
		{name: "a new release under @latest", page: rollouts, steps: []snippetStep{
			{blocks: []string{`alias = "al2023@latest" }` + "\n  subnet"}, before: true},
			{
				blocks: []string{`alias = "al2023@latest" }` + "\n  subnet"}, planOnly: true, nonEmpty: true,
				planChecks: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("karpenter_ec2nodeclass.default", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("karpenter_nodepool.gpu", plancheck.ResourceActionUpdate),
					unchangedAttribute{"karpenter_ec2nodeclass.default", "manifest"},
					plancheck.ExpectKnownValue("karpenter_nodepool.gpu", tfjsonpath.New("ami_assignments").AtMapKey("amd64/nvidia"),
						assignmentOf("amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209")),
				},
			},
		}},
		{name: "a pinned release, bumped", page: rollouts, steps: []snippetStep{
			{
				blocks: []string{pinned, `data "karpenter_ami" "candidate_g5g"`},
				stateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("karpenter_nodepool.gpu", tfjsonpath.New("ami_assignments").AtMapKey("amd64/nvidia"),
						assignmentOf("amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251112")),
					statecheck.ExpectKnownOutputValueAtPath("candidate", tfjsonpath.New("g5g_xl"), knownvalue.StringExact("amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209")),
				},
			},
			{
				blocks: []string{pinned, `data "karpenter_ami" "candidate_g5g"`},
				edit:   bump,
				planChecks: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("karpenter_ec2nodeclass.default", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.default", tfjsonpath.New("manifest"),
						knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  - alias: al2023@v20251209$`))),
					plancheck.ExpectKnownValue("karpenter_nodepool.gpu", tfjsonpath.New("ami_assignments").AtMapKey("arm64/nvidia"),
						assignmentOf("amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209")),
				},
			},
		}},
		{name: "a release not published for the next Kubernetes version", page: rollouts, steps: []snippetStep{{
			blocks: []string{pinned, `data "karpenter_amis" "after_upgrade"`}, planOnly: true,
			expectError: `(?s)alias-not-published.*data.karpenter_amis.after_upgrade.*release v20251112 is not published for Kubernetes\s+1.35.*"al2023@v20260714"`,
		}}},
	}
}

func TestAccDocSnippets(t *testing.T) {
	scenarios := snippetScenarios()
	blocks := map[string][]string{}
	used := map[string]map[int]bool{}
	for _, page := range snippetPages {
		src, err := os.ReadFile(filepath.Join("../../templates", page))
		if err != nil {
			t.Fatal(err)
		}
		blocks[page] = terraformBlocks(string(src))
		used[page] = map[int]bool{}
		for i, b := range blocks[page] {
			checkFormatted(t, fmt.Sprintf("%s block %d", page, i+1), b)
		}
	}
	for _, sc := range scenarios {
		for _, st := range sc.steps {
			for _, key := range st.blocks {
				i := findBlock(t, blocks[sc.page], sc.page, key)
				used[sc.page][i] = true
			}
		}
	}
	for _, page := range snippetPages {
		for i, b := range blocks[page] {
			if !used[page][i] {
				t.Errorf("%s: block %d is not tested by any scenario of TestAccDocSnippets:\n%s", page, i+1, b)
			}
		}
	}
	if t.Failed() {
		return
	}

	afterURL, _ := awsemutest.Start(t)
	beforeURL, _ := awsemutest.StartWith(t, fixturesBeforeRelease(t))
	stubs := stubDir(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Chdir(stubs)
			t.Setenv("TF_ACC_PROVIDER_NAMESPACE", sc.namespace)
			awsemutest.Setenv(t, afterURL)
			resetStubCalls()
			var steps []tfresource.TestStep
			for _, st := range sc.steps {
				var parts []string
				for _, key := range st.blocks {
					parts = append(parts, blocks[sc.page][findBlock(t, blocks[sc.page], sc.page, key)])
				}
				cfg := strings.Join(parts, "\n")
				if st.edit != nil {
					cfg = st.edit(cfg)
				}
				cfg = inDemoAccount(cfg)
				url := afterURL
				if st.before {
					url = beforeURL
				}
				// A directory, not a Config string, and the providers on the
				// step: plugin-testing then runs terraform init with the
				// step's files, which installs the stub modules.
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(snippetPreamble(cfg)+cfg), 0o600); err != nil {
					t.Fatal(err)
				}
				step := tfresource.TestStep{
					ProtoV6ProviderFactories: snippetProviderFactories,
					PreConfig:                func() { awsemutest.Setenv(t, url) },
					ConfigDirectory:          config.StaticDirectory(dir),
					PlanOnly:                 st.planOnly,
					ExpectNonEmptyPlan:       st.nonEmpty,
					ConfigStateChecks:        st.stateChecks,
					Check:                    st.check,
				}
				if st.expectError != "" {
					step.ExpectError = regexp.MustCompile(st.expectError)
				}
				if st.planOnly {
					step.ConfigPlanChecks.PostApplyPreRefresh = st.planChecks
				} else {
					step.ConfigPlanChecks.PreApply = st.planChecks
				}
				steps = append(steps, step)
			}
			tfresource.UnitTest(t, tfresource.TestCase{
				// removed blocks with lifecycle need Terraform 1.7.
				TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_7_0)},
				Steps:                  steps,
			})
		})
	}
}

// terraformBlocks returns the ```terraform blocks of a markdown page,
// de-indented when they sit in a list item.
func terraformBlocks(md string) []string {
	re := regexp.MustCompile("(?ms)^( *)```terraform\n(.*?)^( *)```$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(md, -1) {
		indent := m[1]
		var lines []string
		for _, l := range strings.SplitAfter(m[2], "\n") {
			lines = append(lines, strings.TrimPrefix(l, indent))
		}
		out = append(out, strings.Join(lines, ""))
	}
	return out
}

func findBlock(t *testing.T, blocks []string, page, key string) int {
	t.Helper()
	found := -1
	for i, b := range blocks {
		if strings.Contains(b, key) {
			if found >= 0 {
				t.Fatalf("%s: %q occurs in blocks %d and %d; name a block by a string only it contains", page, key, found+1, i+1)
			}
			found = i
		}
	}
	if found < 0 {
		t.Fatalf("%s: no ```terraform block contains %q", page, key)
	}
	return found
}

// checkFormatted compares a block with what `terraform fmt` makes of it.
func checkFormatted(t *testing.T, name, src string) {
	t.Helper()
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Logf("terraform not on PATH: %s not checked with terraform fmt", name)
		return
	}
	cmd := exec.Command(tf, "fmt", "-")
	cmd.Stdin = strings.NewReader(src)
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("%s: terraform fmt: %v", name, err)
		return
	}
	if string(out) != src {
		t.Errorf("%s is not terraform fmt clean; formatted:\n%s", name, out)
	}
}

// snippetPreamble adds what a page's blocks take for granted: a provider
// configuration, and the modules and the Karpenter Helm release a cluster
// stack has.
func snippetPreamble(cfg string) string {
	var b strings.Builder
	if !strings.Contains(cfg, `provider "karpenter"`) {
		b.WriteString("provider \"karpenter\" {\n  cluster {\n    name = \"demo\"\n  }\n}\n")
	}
	for _, m := range []string{"eks", "karpenter"} {
		if strings.Contains(cfg, "module."+m+".") {
			fmt.Fprintf(&b, "module %q {\n  source = \"./stubs/%s\"\n}\n", m, m)
		}
	}
	if strings.Contains(cfg, "helm_release.karpenter") && !strings.Contains(cfg, `resource "helm_release" "karpenter"`) {
		b.WriteString("resource \"helm_release\" \"karpenter\" {\n  name  = \"karpenter\"\n  chart = \"oci://public.ecr.aws/karpenter/karpenter\"\n}\n")
	}
	return b.String()
}

// stubDir writes the stub modules: terraform-aws-modules/eks's outputs for
// the emulator's cluster "demo". They are literals: plugin-testing cannot
// read a state with resources in child modules.
func stubDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"stubs/eks/main.tf": `output "cluster_name" { value = "demo" }
output "cluster_version" { value = "1.32" }
output "cluster_endpoint" { value = "https://5E4A1C7B0D9F2E3A6B8C4D1E7F0A2B3C.gr7.us-east-1.eks.amazonaws.com" }
output "cluster_certificate_authority_data" { value = base64encode("-----BEGIN CERTIFICATE-----\nstub\n-----END CERTIFICATE-----\n") }
output "cluster_service_cidr" { value = "172.20.0.0/16" }
`,
		"stubs/karpenter/main.tf": `output "node_iam_role_name" { value = "KarpenterNodeRole-demo" }
`,
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fixturesBeforeRelease are the default fixtures as they were before EKS
// published v20251209: the 1.32 AL2023 recommended parameters point at the
// v20251112 images.
func fixturesBeforeRelease(t *testing.T) *awsemu.Fixtures {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, p := range f.Parameters {
		values[*p.Name] = *p.Value
	}
	re := regexp.MustCompile(`^/aws/service/eks/optimized-ami/1\.32/amazon-linux-2023/([^/]+)/([^/]+)/recommended/image_id$`)
	n := 0
	for i, p := range f.Parameters {
		m := re.FindStringSubmatch(*p.Name)
		if m == nil {
			continue
		}
		old := fmt.Sprintf("/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/%s/%s/amazon-eks-node-al2023-%s-%s-1.32-v20251112/image_id", m[1], m[2], m[1], m[2])
		v, ok := values[old]
		if !ok {
			t.Fatalf("fixtures have no %s", old)
		}
		f.Parameters[i].Value = &v
		n++
	}
	if n == 0 {
		t.Fatal("fixtures have no AL2023 1.32 recommended parameters")
	}
	return f
}

// sameYAMLObject checks that an update of a YAML attribute keeps the object:
// the same fields and values, numbers and strings compared as text, as the
// API server compares quantities.
type sameYAMLObject struct{ addr string }

func (c sameYAMLObject) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)["yaml_body"].(string)
		after, _ := rc.Change.After.(map[string]any)["yaml_body"].(string)
		var b, a any
		if err := yaml.Unmarshal([]byte(before), &b); err != nil {
			resp.Error = err
			return
		}
		if err := yaml.Unmarshal([]byte(after), &a); err != nil {
			resp.Error = err
			return
		}
		if !reflect.DeepEqual(scalarsAsText(b), scalarsAsText(a)) {
			bj, _ := json.MarshalIndent(scalarsAsText(b), "", " ")
			aj, _ := json.MarshalIndent(scalarsAsText(a), "", " ")
			resp.Error = fmt.Errorf("%s: the object changes:\nbefore %s\nafter %s", c.addr, bj, aj)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}

func scalarsAsText(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = scalarsAsText(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = scalarsAsText(x)
		}
		return out
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	default:
		return v
	}
}

// unchangedAttribute checks that an updated resource keeps one attribute.
type unchangedAttribute struct{ addr, attr string }

func (c unchangedAttribute) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == c.addr {
			b := rc.Change.Before.(map[string]any)[c.attr]
			a := rc.Change.After.(map[string]any)[c.attr]
			if !reflect.DeepEqual(a, b) {
				resp.Error = fmt.Errorf("%s.%s changes:\n%v\n->\n%v", c.addr, c.attr, b, a)
			}
			return
		}
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}

// The stub providers: each resource keeps its configuration as its state
// and counts deletions, so a test can tell that Terraform forgot a resource
// instead of destroying the cluster object behind it.

var (
	stubMu      sync.Mutex
	stubDeletes = map[string]int{}
)

func resetStubCalls() {
	stubMu.Lock()
	defer stubMu.Unlock()
	stubDeletes = map[string]int{}
}

// notInState fails when a resource whose address is one of addrs, or
// starts with one ending in ".", is still in the state.
func notInState(addrs ...string) tfresource.TestCheckFunc {
	return func(s *terraform.State) error {
		for addr := range s.RootModule().Resources {
			for _, a := range addrs {
				if addr == a || strings.HasSuffix(a, ".") && strings.HasPrefix(addr, a) {
					return fmt.Errorf("%s is still in the state", addr)
				}
			}
		}
		return nil
	}
}

func stubNotDeleted(typeName string) tfresource.TestCheckFunc {
	return func(*terraform.State) error {
		stubMu.Lock()
		defer stubMu.Unlock()
		if n := stubDeletes[typeName]; n > 0 {
			return fmt.Errorf("%d %s deleted: the cluster object would be gone", n, typeName)
		}
		return nil
	}
}

var snippetProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"karpenter": providerserver.NewProtocol6WithError(New("test")()),
	"kubectl": stubProviderServer("kubectl", map[string]map[string]schema.Attribute{
		"kubectl_manifest": {"yaml_body": schema.StringAttribute{Required: true}},
	}),
	"kubernetes": stubProviderServer("kubernetes", map[string]map[string]schema.Attribute{
		"kubernetes_manifest": {"manifest": schema.DynamicAttribute{Required: true}},
	}),
	"helm": stubProviderServer("helm", map[string]map[string]schema.Attribute{
		"helm_release": {
			"name":      schema.StringAttribute{Required: true},
			"chart":     schema.StringAttribute{Required: true},
			"namespace": schema.StringAttribute{Optional: true},
			"values":    schema.ListAttribute{ElementType: types.StringType, Optional: true},
		},
	}),
	"local": stubProviderServer("local", map[string]map[string]schema.Attribute{
		"local_file": {"filename": schema.StringAttribute{Required: true}, "content": schema.StringAttribute{Optional: true}},
	}),
}

func stubProviderServer(name string, resources map[string]map[string]schema.Attribute) func() (tfprotov6.ProviderServer, error) {
	return providerserver.NewProtocol6WithError(&stubProvider{name: name, resources: resources})
}

type stubProvider struct {
	name      string
	resources map[string]map[string]schema.Attribute
}

func (p *stubProvider) Metadata(_ context.Context, _ fwprovider.MetadataRequest, resp *fwprovider.MetadataResponse) {
	resp.TypeName = p.name
}

func (p *stubProvider) Schema(context.Context, fwprovider.SchemaRequest, *fwprovider.SchemaResponse) {
}

func (p *stubProvider) Configure(context.Context, fwprovider.ConfigureRequest, *fwprovider.ConfigureResponse) {
}

func (p *stubProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (p *stubProvider) Resources(context.Context) []func() resource.Resource {
	var out []func() resource.Resource
	for typeName, attrs := range p.resources {
		out = append(out, func() resource.Resource { return &stubResource{typeName: typeName, attrs: attrs} })
	}
	return out
}

type stubResource struct {
	typeName string
	attrs    map[string]schema.Attribute
}

func (r *stubResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.typeName
}

func (r *stubResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
	}
	for k, v := range r.attrs {
		attrs[k] = v
	}
	resp.Schema = schema.Schema{Attributes: attrs}
}

func (r *stubResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), r.typeName)...)
}

func (r *stubResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *stubResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *stubResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
	stubMu.Lock()
	defer stubMu.Unlock()
	stubDeletes[r.typeName]++
}
