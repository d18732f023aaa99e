package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
)

// stdinName names standard input in findings.
const stdinName = "<stdin>"

// manifestExt are the files a directory is searched for.
var manifestExt = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// readInputs reads every path: "-" is standard input (once), a file is
// read whatever its name, a directory is searched recursively for *.yaml,
// *.yml and *.json, skipping hidden directories (.git, .terraform). Names
// are slash-separated, as given.
func readInputs(stdin io.Reader, paths []string) ([]manifestcheck.Input, error) {
	var out []manifestcheck.Input
	seen := map[string]bool{}
	add := func(name string, b []byte) {
		if !seen[name] {
			seen[name] = true
			out = append(out, manifestcheck.Input{Name: name, Text: string(b)})
		}
	}
	for _, p := range paths {
		if p == "-" {
			if seen[stdinName] {
				continue
			}
			b, err := io.ReadAll(stdin)
			if err != nil {
				return nil, fmt.Errorf("reading standard input: %w", err)
			}
			add(stdinName, b)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			add(filepath.ToSlash(filepath.Clean(p)), b)
			continue
		}
		found := 0
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !manifestExt[strings.ToLower(filepath.Ext(path))] {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			found++
			add(filepath.ToSlash(path), b)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no *.yaml, *.yml or *.json file in the directory", p)
		}
	}
	return out, nil
}
