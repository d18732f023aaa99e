package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFixturesAreFresh: the committed files equal a fresh
// generation. On failure run `go generate ./internal/awsemu`.
func TestCommittedFixturesAreFresh(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 14 {
		t.Errorf("generated %d files, want 14", len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./internal/awsemu)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from a fresh generation: run go generate ./internal/awsemu", name)
		}
	}
}

// TestGenerationIsDeterministic guards against map-order or clock leaks.
func TestGenerationIsDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}
