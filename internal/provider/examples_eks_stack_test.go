package provider

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// TestAccEKSStackExample plans examples/eks-stack, a root module calling the
// local module examples/eks-stack/modules/karpenter-pools twice, exactly as
// committed: only a provider override file pointing at the in-process
// emulator is added. `terraform plan` runs Terraform's validate walk first
// (module inputs unknown, as under `terraform validate`), then the plan with
// everything known, so both paths of every check run.
func TestAccEKSStackExample(t *testing.T) {
	dir := stackCopy(t, "../../examples/eks-stack")
	prov, _ := emulatorWithStats(t, "")
	// An override file merges into the example's provider block: region,
	// retries and endpoints change, the cluster block stays.
	if err := os.WriteFile(filepath.Join(dir, "emulator_override.tf"), []byte(prov), 0o600); err != nil {
		t.Fatal(err)
	}
	// The example declares karpenter-tf/karpenter; the in-process provider
	// is registered under that address instead of hashicorp/karpenter.
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "karpenter-tf")
	// plugin-testing copies only the files of a ConfigDirectory, and links
	// the directories of the current directory into its working directory:
	// running from the copy is what makes ./modules/karpenter-pools resolve.
	t.Chdir(dir)

	assignment := func(pool, key, want string) plancheck.PlanCheck {
		return plancheck.ExpectKnownOutputValueAtPath("ami_assignments", tfjsonpath.New(pool).AtMapKey(key),
			knownvalue.StringRegexp(regexp.MustCompile(`^ami-[0-9a-f]+ `+regexp.QuoteMeta(want)+`$`)))
	}
	manifest := func(key, pattern string) plancheck.PlanCheck {
		return plancheck.ExpectKnownOutputValueAtPath("manifests", tfjsonpath.New(key), knownvalue.StringRegexp(regexp.MustCompile(pattern)))
	}
	// The example has its own provider block, so plugin-testing wants the
	// factories on each step rather than on the test case.
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_9_0)},
		Steps: []resource.TestStep{
			{
				// A release that EKS never published fails the plan inside
				// the module, at the class, naming the published releases.
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigDirectory:          config.StaticDirectory(dir),
				ConfigVariables:          config.Variables{"al2023_release": config.StringVariable("v20200101")},
				PlanOnly:                 true,
				ExpectError:              regexp.MustCompile(`(?s)alias-not-published.*module\.(general|accelerated)\.karpenter_ec2nodeclass\.this.*v20251209`),
			},
			{
				// PlanOnly: the pools are for_each instances, which
				// plugin-testing's state reader does not support, and an
				// apply would add nothing: these resources only render.
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigDirectory:          config.StaticDirectory(dir),
				PlanOnly:                 true,
				ExpectNonEmptyPlan:       true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(`module.general.karpenter_ec2nodeclass.this`, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(`module.accelerated.karpenter_nodepool.this["gpu"]`, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(`terraform_data.karpenter`, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownOutputValue("applied_manifest_count", knownvalue.Int64Exact(6)),
					// Each family boots the image Karpenter would give it:
					// the arm64 GPU family the arm64 NVIDIA image, Inferentia
					// and Trainium the Neuron image, m1 (previous generation)
					// is kept out by min_generation.
					assignment("general-amd64", "amd64/standard", "amazon-eks-node-al2023-x86_64-standard-1.32-v20251209: c5, m5, m7i-flex"),
					assignment("general-arm64", "arm64/standard", "amazon-eks-node-al2023-arm64-standard-1.32-v20251209: c6g, c7g, m6g, r6g"),
					assignment("gpu", "amd64/nvidia", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209: g4dn, g5"),
					assignment("gpu", "arm64/nvidia", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209: g5g"),
					assignment("neuron", "amd64/neuron", "amazon-eks-node-al2023-x86_64-neuron-1.32-v20251209: inf2, trn1"),
					// The manifests are known at plan, so an applier shows
					// the real diff.
					manifest("EC2NodeClass/accelerated", `(?m)^kind: EC2NodeClass\n(.*\n)*  amiSelectorTerms:\n  - alias: al2023@v20251209\n(.*\n)*      volumeSize: 200Gi$`),
					manifest("NodePool/gpu", `(?m)^    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: accelerated$`),
					manifest("NodePool/neuron", `(?m)^      taints:\n      - effect: NoSchedule\n        key: aws.amazon.com/neuron$`),
					manifest("NodePool/general-arm64", `(?m)^      - key: karpenter.k8s.aws/instance-generation\n        operator: Gt\n        values:\n        - "5"$`),
				}},
			},
		},
	})
}

// stackCopy copies an example directory tree into a temporary directory,
// leaving out what a local terraform run may have left behind.
func stackCopy(t *testing.T, src string) string {
	t.Helper()
	src, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		name := d.Name()
		if name == ".terraform" || name == ".terraform.lock.hcl" || strings.HasPrefix(name, "terraform.tfstate") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// A key the module's inputs do not take fails terraform validate at the
// caller's line, naming the key and the one it most likely meant: declared
// as object types, the inputs would drop it without a word
// (hashicorp/terraform#29204), and the GPU pool with `familes` would admit
// every instance type of both architectures.
func TestAccEKSStackModuleInputTypo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"pool key", `families      = ["g4dn", "g5", "g5g"]`, `familes       = ["g4dn", "g5", "g5g"]`,
			`pools["gpu"].familes (did you mean "families"?)`},
		{"camelCase nested key", `disruption = { consolidation_policy = "WhenEmpty", consolidate_after = "10m" }`,
			`disruption = { consolidation_policy = "WhenEmpty", consolidateAfter = "10m" }`,
			`pools["gpu"].disruption.consolidateAfter (did you mean "consolidate_after"?)`},
		{"block device key", `ebs         = { volume_size = "200Gi", volume_type = "gp3", encrypted = true }`,
			`ebs         = { volume_szie = "200Gi", volume_type = "gp3", encrypted = true }`,
			`block_device_mappings[0].ebs.volume_szie (did you mean "volume_size"?)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := stackCopy(t, "../../examples/eks-stack")
			file := filepath.Join(dir, "main.tf")
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			if strings.Count(src, c.from) != 1 {
				t.Fatalf("main.tf must hold %q once", c.from)
			}
			src = strings.Replace(src, c.from, c.to, 1)
			if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			// The argument of the module call that holds the typo.
			before, _, _ := strings.Cut(src, c.to)
			arg := "  pools = {"
			if strings.HasPrefix(c.want, "block_device_mappings") {
				arg = "  block_device_mappings = ["
			}
			line := strings.Count(before[:strings.LastIndex(before, arg)], "\n") + 1
			run := inProcessTerraform(t)
			run(dir, "init", "-input=false", "-backend=false")
			out, _ := run(dir, "validate", "-json")
			for _, d := range jsonDiagnostics(out) {
				if d.Severity == "error" && d.Summary == "Invalid value for variable" && strings.Contains(d.Detail, c.want) &&
					d.Range != nil && d.Range.Filename == "main.tf" && d.Range.Start.Line == line {
					return
				}
			}
			t.Fatalf("no error at main.tf line %d naming %s:\n%s", line, c.want, out)
		})
	}
}
