# The rules of ./policy (check blocks) on the stack's rendered manifests: the
# real stack must pass them, and each rule must catch what it is for. A
# failing check, only a warning in plan and apply, fails a terraform test
# run unless expect_failures names it.

run "stack" {
  command = plan
}

run "stack_meets_the_policy" {
  command = plan

  module {
    source = "./tests/policy"
  }

  variables {
    manifests = run.stack.manifests
  }

  # The checks are the assertions; this one makes sure they saw every object
  # (a policy over nothing passes vacuously).
  assert {
    condition     = length(local.pools) == 4 && length(local.classes) == 2
    error_message = "The policy saw ${length(local.pools)} NodePools and ${length(local.classes)} EC2NodeClasses, not 4 and 2."
  }
}

# The stack's own manifests with one rule broken each: the GPU pool's taints
# removed, the general class on @latest, the accelerated class's volume not
# encrypted (as a pull request might do).

run "an_untainted_gpu_pool_is_caught" {
  command = plan

  module {
    source = "./tests/policy"
  }

  variables {
    manifests = merge(run.stack.manifests, {
      "NodePool/gpu" = yamlencode(merge(yamldecode(run.stack.manifests["NodePool/gpu"]), {
        spec = merge(yamldecode(run.stack.manifests["NodePool/gpu"]).spec, {
          template = { spec = { for k, v in yamldecode(run.stack.manifests["NodePool/gpu"]).spec.template.spec : k => v if k != "taints" } }
        })
      }))
    })
  }

  expect_failures = [check.accelerated_pools_are_tainted]
}

run "an_unpinned_class_is_caught" {
  command = plan

  module {
    source = "./tests/policy"
  }

  variables {
    manifests = merge(run.stack.manifests, {
      "EC2NodeClass/general" = replace(run.stack.manifests["EC2NodeClass/general"], "al2023@v20251209", "al2023@latest")
    })
  }

  expect_failures = [check.classes_pin_an_ami_release]
}

run "an_unencrypted_volume_is_caught" {
  command = plan

  module {
    source = "./tests/policy"
  }

  variables {
    manifests = merge(run.stack.manifests, {
      "EC2NodeClass/accelerated" = replace(run.stack.manifests["EC2NodeClass/accelerated"], "encrypted: true", "encrypted: false")
    })
  }

  expect_failures = [check.volumes_are_encrypted]
}
