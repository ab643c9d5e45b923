// Package registry is a pinned snapshot of the ACP registry
// (github.com/agentclientprotocol/registry): which agents it lists, and for
// each the npm package (or binary) it installs. Editors install agents from
// the registry, so the registry, not a package name the project happens to
// know, says which package an agent is: the registry's "Codex" (codex-acp)
// is @agentclientprotocol/codex-acp, not @zed-industries/codex-acp.
//
// The snapshot is registry.json in this directory, embedded in the binary;
// testdata/registry/README.md says where its data came from. Live reads the
// published registry, and Moves says which agents' packages changed since
// the snapshot (scripts/compat-latest).
package registry

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

//go:embed registry.json
var snapshotJSON []byte

// Registry is a list of agents, in the shape of the published registry.json
// (the members this package reads; the snapshot keeps only those).
type Registry struct {
	// Date is the day the snapshot's registry was read ("" for the
	// published registry, which has none).
	Date   string  `json:"date,omitempty"`
	Agents []Entry `json:"agents"`
}

// Entry is one agent of the registry.
type Entry struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Distribution Distribution `json:"distribution"`
}

// Distribution is how the registry installs an agent. An entry may have
// more than one; an editor prefers npx.
type Distribution struct {
	Npx *Package `json:"npx,omitempty"`
	Uvx *Package `json:"uvx,omitempty"`
	// Binary is keyed by platform (linux-x86_64, darwin-aarch64, …).
	Binary map[string]Target `json:"binary,omitempty"`
}

// Package is an npx or uvx distribution: "@scope/name@1.2.3" in the
// published registry, the bare name in the snapshot.
type Package struct {
	Package string `json:"package"`
	// Args are the arguments the registry starts it with ("--acp"): without
	// them some agents are an interactive CLI, not an ACP agent.
	Args []string `json:"args,omitempty"`
}

// Target is one platform's archive of a binary distribution.
type Target struct {
	// Cmd is the executable inside the archive, "./goose"; Args the
	// arguments it is started with.
	Cmd  string   `json:"cmd"`
	Args []string `json:"args,omitempty"`
}

// Parse reads a registry.json.
func Parse(data []byte) (*Registry, error) {
	var r Registry
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	return &r, nil
}

var snapshot = mustParse(snapshotJSON)

func mustParse(data []byte) *Registry {
	r, err := Parse(data)
	if err != nil {
		panic("the embedded registry snapshot: " + err.Error())
	}
	return r
}

// Snapshot is the pinned snapshot embedded in the binary.
func Snapshot() *Registry { return snapshot }

// NpmPackage is the entry's npx package without its version ("" when it has
// none).
func (e Entry) NpmPackage() string {
	if e.Distribution.Npx == nil {
		return ""
	}
	return PackageName(e.Distribution.Npx.Package)
}

// Installs says in a few words what the registry installs for the entry:
// its npm package, "uvx NAME", or "binary".
func (e Entry) Installs() string {
	d := e.Distribution
	switch {
	case d.Npx != nil:
		return PackageName(d.Npx.Package)
	case d.Uvx != nil:
		return "uvx " + PackageName(d.Uvx.Package)
	case d.Binary != nil:
		return "binary"
	}
	return Unrecorded
}

// Unrecorded is what Installs says of an entry whose distribution the
// snapshot does not record (the registry listed the agent, but its
// agent.json could not be read).
const Unrecorded = "a distribution the snapshot does not record"

// Args are the arguments the registry starts the entry's agent with: its
// npx package's, else its uvx package's, else its linux-x86_64 binary's.
func (e Entry) Args() []string {
	d := e.Distribution
	switch {
	case d.Npx != nil:
		return d.Npx.Args
	case d.Uvx != nil:
		return d.Uvx.Args
	}
	return d.Binary["linux-x86_64"].Args
}

// Commands are the base names of the entry's binary executables.
func (e Entry) Commands() []string {
	var names []string
	for _, t := range e.Distribution.Binary {
		if t.Cmd == "" {
			continue
		}
		name := path.Base(strings.ReplaceAll(t.Cmd, `\`, "/"))
		names = append(names, strings.TrimSuffix(strings.TrimSuffix(name, ".exe"), ".cmd"))
	}
	sort.Strings(names)
	return names
}

// PackageName is an npm package spec without its version:
// "@agentclientprotocol/codex-acp@2.6.0" → "@agentclientprotocol/codex-acp",
// "cline@3.0.4" → "cline".
func PackageName(spec string) string {
	at := strings.LastIndex(spec, "@")
	if at <= 0 { // no version; a leading @ is the scope's
		return spec
	}
	return spec[:at]
}

// ByID is the entry with that id.
func (r *Registry) ByID(id string) (Entry, bool) {
	for _, e := range r.Agents {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// ByPackage is the entry that installs the npm package pkg (a name or a
// spec with a version).
func (r *Registry) ByPackage(pkg string) (Entry, bool) {
	pkg = PackageName(pkg)
	for _, e := range r.Agents {
		if pkg != "" && e.NpmPackage() == pkg {
			return e, true
		}
	}
	return Entry{}, false
}

// ByCommand is the entry whose binary's executable is named command.
func (r *Registry) ByCommand(command string) (Entry, bool) {
	for _, e := range r.Agents {
		for _, c := range e.Commands() {
			if c == command {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// ByName is the entry whose id or name is name, ignoring case: how an
// agent's agentInfo.name can name a binary agent ("OpenCode").
func (r *Registry) ByName(name string) (Entry, bool) {
	for _, e := range r.Agents {
		if name != "" && (strings.EqualFold(e.ID, name) || strings.EqualFold(e.Name, name)) {
			return e, true
		}
	}
	return Entry{}, false
}
