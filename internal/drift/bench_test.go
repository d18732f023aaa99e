package drift

import "testing"

// Cost of one drift hash (the provider computes one per resource per plan).
func BenchmarkEC2NodeClassHash(b *testing.B) {
	spec := classCases()[len(classCases())-1].spec // "everything"
	for b.Loop() {
		if _, err := EC2NodeClassHash(spec, testCABundle, latest); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNodePoolHash(b *testing.B) {
	spec := poolCases()[len(poolCases())-1].spec
	for b.Loop() {
		if _, err := NodePoolHash(spec, latest); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEC2NodeClassChanges(b *testing.B) {
	cs := classCases()
	old, updated := cs[0].spec, cs[len(cs)-1].spec
	for b.Loop() {
		if _, err := EC2NodeClassChanges(old, updated, testCABundle, testCABundle, latest); err != nil {
			b.Fatal(err)
		}
	}
}
