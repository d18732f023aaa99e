# The module's inputs are `type = any`, checked by a validation with
# provider::karpenter::undeclared_keys: a key the module does not take fails
# at the module call, with the key it most likely meant. Declared as object
# types, the inputs would drop such a key without a word
# (hashicorp/terraform#29204): with `familes`, the GPU pool below would admit
# every instance type. expect_failures lets the plan go on past the failed
# validation, so the runs need the provider configured as the root module
# configures it (scripts/test-examples.sh points it at the emulator).

provider "karpenter" {
  region = "us-east-1"

  cluster {
    name = "demo"
  }
}

variables {
  name         = "typo"
  cluster_name = "demo"
  node_role    = "KarpenterNodeRole-demo"
  ami_alias    = "al2023@v20251209"
}

run "a_misspelled_pool_key_fails_at_the_call" {
  command = plan

  module {
    source = "./modules/karpenter-pools"
  }

  variables {
    pools = {
      gpu = { familes = ["g5"], architectures = ["amd64", "arm64"] }
    }
  }

  expect_failures = [var.pools]
}

run "a_camel_case_key_fails_at_the_call" {
  command = plan

  module {
    source = "./modules/karpenter-pools"
  }

  variables {
    pools = {
      general = { categories = ["m"], minGeneration = 6 }
    }
  }

  expect_failures = [var.pools]
}

run "a_misspelled_volume_key_fails_at_the_call" {
  command = plan

  module {
    source = "./modules/karpenter-pools"
  }

  variables {
    pools = {
      general = { categories = ["m"] }
    }
    block_device_mappings = [{
      device_name = "/dev/xvda"
      root_volume = true
      ebs         = { volumeSize = "100Gi" }
    }]
  }

  expect_failures = [var.block_device_mappings]
}

# The inputs as documented plan cleanly: the check refuses nothing it should
# take.
run "documented_keys_pass" {
  command = plan

  module {
    source = "./modules/karpenter-pools"
  }

  variables {
    pools = {
      gpu = {
        families       = ["g5"]
        categories     = null
        architectures  = ["amd64"]
        capacity_types = ["on-demand"]
        min_generation = 5
        weight         = 10
        labels         = { "example.com/accelerator" = "nvidia" }
        limits         = { "nvidia.com/gpu" = "16" }
        taints         = [{ key = "nvidia.com/gpu", value = "true", effect = "NoSchedule" }]
        startup_taints = [{ key = "example.com/not-ready", effect = "NoExecute" }]
        disruption = {
          consolidation_policy = "WhenEmpty"
          consolidate_after    = "10m"
          budgets              = [{ nodes = "1", schedule = "0 9 * * mon-fri", duration = "8h", reasons = ["Empty"] }]
        }
      }
    }
    block_device_mappings = [{
      device_name = "/dev/xvda"
      root_volume = true
      ebs = {
        volume_size = "100Gi", volume_type = "gp3", iops = 3000, throughput = 125, encrypted = true
        kms_key_id  = null, delete_on_termination = true, snapshot_id = null
      }
    }]
  }

  assert {
    condition     = yamldecode(output.manifests["NodePool/gpu"]).spec.disruption.budgets[0].reasons == ["Empty"]
    error_message = "The gpu pool's budget must be rendered as written."
  }
}
