package crd

import (
	"context"
	"sync"
	"testing"
)

// BenchmarkSetup is the one-time cost a process pays on its first manifest
// of a kind: parse the CRD, convert, build the structural schema and the
// OpenAPI validator, compile the CEL rules.
func BenchmarkSetup(b *testing.B) {
	for _, k := range []*Kind{EC2NodeClass, NodePool, NodeOverlay} {
		b.Run(k.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := compile(k.crd, k.Version()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidate is the cost per manifest once set up.
func BenchmarkValidate(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		k    *Kind
		obj  map[string]any
	}{
		{"EC2NodeClass/minimal", EC2NodeClass, object(b, nodeClass(nil))},
		{"EC2NodeClass/full", EC2NodeClass, object(b, validNodeClasses["al2 by name with full kubelet, raid0 and snapshot"])},
		{"NodePool/minimal", NodePool, object(b, nodePool(nil))},
		{"NodePool/full", NodePool, object(b, validNodePools["full dynamic pool"])},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if err := tc.k.Prepare(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, fs := tc.k.Findings(ctx, tc.obj); len(fs) > 0 {
					b.Fatal(fs)
				}
			}
		})
	}
}

// Terraform plans resources concurrently; run with -race.
func TestConcurrentValidation(t *testing.T) {
	ctx := context.Background()
	nc := object(t, validNodeClasses["al2 by name with full kubelet, raid0 and snapshot"])
	np := object(t, validNodePools["full dynamic pool"])
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, obj := EC2NodeClass, nc
			if i%2 == 1 {
				k, obj = NodePool, np
			}
			for range 5 {
				if _, fs := k.Findings(ctx, obj); len(fs) > 0 {
					t.Error(fs)
					return
				}
			}
		}()
	}
	wg.Wait()
}
