package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// The published registry: the aggregated registry.json the registry's CI
// builds from its <id>/agent.json files (its README names this address),
// and each agent's own file in the repository, read when that is out of
// reach.
const (
	PublishedURL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
	AgentFileURL = "https://raw.githubusercontent.com/agentclientprotocol/registry/main/%s/agent.json"
)

// maxRegistryBytes bounds what Live reads of one answer.
const maxRegistryBytes = 16 << 20

// Live reads the published registry at publishedURL; if that fails, it
// reads agentFileURL (a format with one %s, the agent's id) for each agent
// of ids instead (one it does not find is no longer listed). from says which
// it read, and why not the first.
func Live(ctx context.Context, client *http.Client, publishedURL, agentFileURL string, ids []string) (r *Registry, from string, err error) {
	data, err := get(ctx, client, publishedURL)
	if err == nil {
		r, err = Parse(data)
		return r, publishedURL, err
	}
	published := err
	var live Registry
	for _, id := range ids {
		data, err := get(ctx, client, fmt.Sprintf(agentFileURL, id))
		if errors.Is(err, errNotFound) {
			continue // the registry no longer lists it
		}
		if err != nil {
			return nil, "", fmt.Errorf("registry: %w; and the agent files: %w", published, err)
		}
		var e Entry
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, "", fmt.Errorf("registry: %s/agent.json: %w", id, err)
		}
		live.Agents = append(live.Agents, e)
	}
	return &live, fmt.Sprintf(agentFileURL, "ID") + " (" + published.Error() + ")", nil
}

// errNotFound is an agent file the registry no longer has.
var errNotFound = errors.New("not found")

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("GET %s: %w", url, errNotFound)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRegistryBytes))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return data, nil
}

// Change is an agent of the snapshot whose distribution the live registry
// changed, or that it no longer lists (To == "").
type Change struct {
	ID, From, To string
}

// String is the line scripts/compat-latest prints.
func (c Change) String() string {
	if c.To == "" {
		return fmt.Sprintf("GONE: %s: %s is no longer in the registry", c.ID, c.From)
	}
	return fmt.Sprintf("MOVED: %s: %s → %s", c.ID, c.From, c.To)
}

// Moves are the snapshot's agents whose package (or kind of distribution)
// differs in live, and those live no longer lists, by id. A new version of
// the same package is no move; agents live added are Added's.
func Moves(snapshot, live *Registry) []Change {
	var changes []Change
	for _, old := range snapshot.Agents {
		now, ok := live.ByID(old.ID)
		switch {
		case !ok:
			changes = append(changes, Change{old.ID, old.Installs(), ""})
		case now.Installs() != old.Installs():
			changes = append(changes, Change{old.ID, old.Installs(), now.Installs()})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].ID < changes[j].ID })
	return changes
}

// Added are live's agents the snapshot does not list, as "id (installs)".
func Added(snapshot, live *Registry) []string {
	var added []string
	for _, e := range live.Agents {
		if _, ok := snapshot.ByID(e.ID); !ok {
			added = append(added, e.ID+" ("+e.Installs()+")")
		}
	}
	sort.Strings(added)
	return added
}

// IDs are the registry's agent ids.
func (r *Registry) IDs() []string {
	ids := make([]string, len(r.Agents))
	for i, e := range r.Agents {
		ids[i] = e.ID
	}
	return ids
}
