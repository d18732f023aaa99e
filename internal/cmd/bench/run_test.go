package main

import (
	"slices"
	"testing"
	"time"
)

// A row's runs are measured one plan at a time, taking turns with the
// other stacks: the merged cell holds every run, its medians are those of
// all runs, and a request count that changed between runs is listed.
func TestCellMergeKeepsEveryRun(t *testing.T) {
	run := func(wall, plugin, total time.Duration, ssm int) Cell {
		return Cell{Stack: StackKarpenter, N: 60, Walls: []time.Duration{wall}, PluginCPU: plugin, TotalCPU: total,
			pluginCPUs: []time.Duration{plugin}, totalCPUs: []time.Duration{total}, PeakRSSKB: int64(wall / time.Millisecond), PluginStarts: 3,
			Requests: map[string]int{"ssm:GetParameters": ssm, "ec2:DescribeImages": 1}}
	}
	var c Cell
	c.merge(run(3*time.Second, 1*time.Second, 2*time.Second, 1))
	c.merge(run(1*time.Second, 3*time.Second, 4*time.Second, 2))
	c.merge(run(2*time.Second, 2*time.Second, 3*time.Second, 1))
	if got := c.Walls; !slices.Equal(got, []time.Duration{3 * time.Second, time.Second, 2 * time.Second}) {
		t.Errorf("walls %v", got)
	}
	if c.Median() != 2*time.Second || c.PluginCPU != 2*time.Second || c.TotalCPU != 3*time.Second {
		t.Errorf("medians: wall %v plugin %v total %v, want 2s 2s 3s", c.Median(), c.PluginCPU, c.TotalCPU)
	}
	if c.PeakRSSKB != 3000 || c.PluginStarts != 3 || c.Stack != StackKarpenter {
		t.Errorf("peak %d starts %d stack %v", c.PeakRSSKB, c.PluginStarts, c.Stack)
	}
	if !slices.Equal(c.Varying, []string{"ssm:GetParameters"}) {
		t.Errorf("varying %v, want ssm:GetParameters only", c.Varying)
	}
}
