# The stack with the real provider, planned against AWS (scripts/test-examples.sh
# points it at the project's AWS emulator; against a real account it needs
# read-only EC2, SSM and EKS access). `command = plan` creates nothing: the
# provider resolves the images, renders the manifests and runs its checks at
# plan, so every value asserted here is known after the plan.

run "renders_every_object" {
  command = plan

  assert {
    condition = toset(keys(output.manifests)) == toset([
      "EC2NodeClass/general", "EC2NodeClass/accelerated",
      "NodePool/general-arm64", "NodePool/general-amd64", "NodePool/gpu", "NodePool/neuron",
    ])
    error_message = "The stack renders ${jsonencode(keys(output.manifests))}, not one class per module call and one pool per pools entry."
  }

  assert {
    condition     = output.applied_manifest_count == 6
    error_message = "The applier receives ${output.applied_manifest_count} manifests, not 6."
  }

  # The applier's stand-in holds each manifest's hash, so it changes exactly
  # when that manifest does, without printing the text a third time.
  assert {
    condition     = terraform_data.karpenter.input == { for key, m in output.manifests : key => sha256(m) }
    error_message = "terraform_data.karpenter must hold the SHA-256 of every manifest, keyed as the manifests output."
  }

  assert {
    condition = alltrue([
      for key in ["EC2NodeClass/general", "EC2NodeClass/accelerated"] :
      yamldecode(output.manifests[key]).spec.amiSelectorTerms == [{ alias = "al2023@v20251209" }]
    ])
    error_message = "Every class must pin the release of var.al2023_release (al2023@v20251209)."
  }

  assert {
    condition     = yamldecode(output.manifests["EC2NodeClass/accelerated"]).spec.blockDeviceMappings[0].ebs.volumeSize == "200Gi"
    error_message = "The accelerated class must have its 200Gi root volume."
  }
}

run "pools_are_wired_to_their_class" {
  command = plan

  assert {
    condition = yamldecode(output.manifests["NodePool/gpu"]).spec.template.spec.nodeClassRef == {
      group = "karpenter.k8s.aws"
      kind  = "EC2NodeClass"
      name  = "accelerated"
    }
    error_message = "NodePool/gpu must reference the accelerated EC2NodeClass."
  }

  assert {
    condition = yamldecode(output.manifests["NodePool/gpu"]).spec.template.spec.taints == [
      { key = "nvidia.com/gpu", value = "true", effect = "NoSchedule" },
    ]
    error_message = "NodePool/gpu must taint its nodes nvidia.com/gpu=true:NoSchedule."
  }

  assert {
    condition     = yamldecode(output.manifests["NodePool/gpu"]).spec.disruption.consolidationPolicy == "WhenEmpty"
    error_message = "GPU nodes must only be consolidated when empty."
  }

  assert {
    condition     = yamldecode(output.manifests["NodePool/general-arm64"]).spec.weight == 50
    error_message = "Graviton must be preferred (weight 50)."
  }
}

run "each_family_boots_the_right_image" {
  command = plan

  # ami_assignments: per pool, image key => "<id> <name>: <families>". The
  # ids are the region's; the names and families are the same everywhere.
  # g5g is arm64: it must get the arm64 NVIDIA image, the x86 GPU families
  # the x86_64 one.
  assert {
    condition = { for key, line in output.ami_assignments["gpu"] : key => regex("^ami-[0-9a-f]+ (.*)$", line)[0] } == {
      "amd64/nvidia" = "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209: g4dn, g5"
      "arm64/nvidia" = "amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209: g5g"
    }
    error_message = "The GPU pool's images: ${jsonencode(output.ami_assignments["gpu"])}."
  }

  assert {
    condition     = keys(output.ami_assignments["neuron"]) == tolist(["amd64/neuron"])
    error_message = "Inferentia and Trainium must boot the Neuron image: ${jsonencode(output.ami_assignments["neuron"])}."
  }

  # The families the requirements admit, as the provider computed them.
  assert {
    condition = sort(flatten([
      for line in values(module.general.ami_assignments["general-arm64"]) : split(", ", regex(": (.*)$", line)[0])
    ])) == tolist(["c6g", "c7g", "m6g", "r6g"])
    error_message = "general-arm64 (c, m, r of generation 6 or later, arm64) boots ${jsonencode(module.general.ami_assignments["general-arm64"])}."
  }

  assert {
    condition     = alltrue([for key in keys(module.general.ami_assignments["general-arm64"]) : startswith(key, "arm64/")])
    error_message = "general-arm64 must boot arm64 images only."
  }
}

run "an_older_release" {
  command = plan

  variables {
    al2023_release = "v20251112"
  }

  assert {
    condition = alltrue(flatten([
      for pool, images in output.ami_assignments : [for line in values(images) : strcontains(line, "-1.32-v20251112: ")]
    ]))
    error_message = "Every pool must boot the v20251112 images: ${jsonencode(output.ami_assignments)}."
  }
}

# Negative tests: expect_failures names the checkable object that must fail,
# here a variable validation of ../variables.tf. A provider error (any rule id
# of the rules guide) cannot be expected: terraform test reports the error and
# "Missing expected failure" for the object, and the run fails. So a mistake
# a test must prove caught is also written as a validation, a check block or
# a condition; the provider's own rule stays the backstop.

run "latest_is_refused" {
  command = plan

  variables {
    al2023_release = "latest"
  }

  expect_failures = [var.al2023_release]
}

run "a_release_needs_its_v" {
  command = plan

  variables {
    al2023_release = "20251209"
  }

  expect_failures = [var.al2023_release]
}

run "cluster_name_is_an_eks_name" {
  command = plan

  variables {
    cluster_name = "prod cluster"
  }

  expect_failures = [var.cluster_name]
}

