// Command fixturegen writes the emulator's own fixture set: the AWS CLI
// shaped JSON files under testdata/ and the Go index of their notable
// images (fixture_index.go). Run it through `go generate ./internal/awsemu`.
//
// Everything is derived deterministically from the tables in this package
// (ids and snapshot ids are hashes of names, times of day are hashes too), so
// a fresh run reproduces the committed files byte for byte; a test checks it.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

func main() {
	dir := flag.String("dir", ".", "the internal/awsemu package directory")
	flag.Parse()
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixturegen:", err)
		os.Exit(1)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(*dir, filepath.FromSlash(name))
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fixturegen:", err)
			os.Exit(1)
		}
	}
}
