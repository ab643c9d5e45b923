package registry

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Pin is one directory of testdata/agents: the npm package it pins for the
// real-agent tests, at which version, and the registry agent it is (nil
// when the registry does not install that package).
type Pin struct {
	Dir, Package, Version string
	Agent                 *Entry
}

// Pins reads the package.json of each directory under dir (each pins one
// package) and names the registry agent of each in r.
func Pins(dir string, r *Registry) ([]Pin, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "package.json"))
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	sort.Strings(files)
	var pins []Pin
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("registry: %w", err)
		}
		var pj struct{ Dependencies map[string]string }
		if err := json.Unmarshal(data, &pj); err != nil {
			return nil, fmt.Errorf("registry: %s: %w", f, err)
		}
		if len(pj.Dependencies) != 1 {
			return nil, fmt.Errorf("registry: %s pins %d packages, not one", f, len(pj.Dependencies))
		}
		for pkg, version := range pj.Dependencies {
			pin := Pin{Dir: filepath.Base(filepath.Dir(f)), Package: pkg, Version: version}
			if e, ok := r.ByPackage(pkg); ok {
				pin.Agent = &e
			}
			pins = append(pins, pin)
		}
	}
	return pins, nil
}

// Untested are r's npm agents that no pin installs, as "id (package)".
func Untested(pins []Pin, r *Registry) []string {
	tested := map[string]bool{}
	for _, p := range pins {
		if p.Agent != nil {
			tested[p.Agent.ID] = true
		}
	}
	var untested []string
	for _, e := range r.Agents {
		if !tested[e.ID] && e.NpmPackage() != "" {
			untested = append(untested, e.ID+" ("+e.NpmPackage()+")")
		}
	}
	return untested
}
