# The stack with mock_provider "karpenter": no AWS, no emulator, and no
# provider logic beyond validation. Terraform still starts the installed
# provider for its schema and for ValidateResourceConfig, so a mistake
# decidable from literal values (a misspelled block argument, a taint effect
# "Bogus") still fails the run, as an error that expect_failures cannot
# catch. Planning and applying are Terraform's fakes: every computed
# attribute (manifest, amis, ami_assignments, instance_families, node_class)
# is unknown at plan and a random value at apply, unless an override_* block
# or a mock_resource default sets it. No image is resolved and no rule that
# needs images, instance types or the class runs, so a mock test proves the
# configuration's wiring, never that Karpenter would accept the result: that
# is what stack.tftest.hcl, with the real provider, is for.

mock_provider "karpenter" {}

run "wiring_without_aws" {
  command = plan

  # Which objects exist depends on the configuration only: known at plan.
  assert {
    condition = toset(keys(output.manifests)) == toset([
      "EC2NodeClass/general", "EC2NodeClass/accelerated",
      "NodePool/general-arm64", "NodePool/general-amd64", "NodePool/gpu", "NodePool/neuron",
    ])
    error_message = "The stack declares ${jsonencode(keys(output.manifests))}."
  }

  assert {
    condition     = output.applied_manifest_count == 6
    error_message = "The applier receives ${output.applied_manifest_count} manifests, not 6."
  }
}

run "an_override_is_all_a_mock_knows" {
  command = plan

  # override_during = plan (Terraform 1.11) makes the value known at plan;
  # without it the override applies at apply only. The assertion proves that
  # the output routes the gpu pool's manifest under its key, nothing about the
  # manifest, which is the test's own text.
  override_resource {
    target          = module.accelerated.karpenter_nodepool.this["gpu"]
    override_during = plan
    values = {
      manifest = "kind: NodePool\nmetadata:\n  name: gpu\n"
    }
  }

  assert {
    condition     = yamldecode(output.manifests["NodePool/gpu"]).metadata.name == "gpu"
    error_message = "NodePool/gpu is not the gpu pool's manifest: ${output.manifests["NodePool/gpu"]}"
  }
}

run "apply_gives_random_values" {
  # Nothing here reaches AWS or a cluster: the mocked resources keep fake
  # values in the test's own state, terraform_data keeps its input.
  command = apply

  assert {
    condition     = !can(yamldecode(output.manifests["NodePool/gpu"]).kind)
    error_message = "A mocked manifest is a random string, not YAML; got ${output.manifests["NodePool/gpu"]}."
  }
}
