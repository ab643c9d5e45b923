package acp

// Direction is the way a message travels.
type Direction uint8

const (
	ClientToAgent Direction = iota // client (the editor) → agent
	AgentToClient                  // agent → client
)

// String names the direction as traces spell it.
func (d Direction) String() string {
	if d == ClientToAgent {
		return "client->agent"
	}
	return "agent->client"
}

// Reverse is the other direction.
func (d Direction) Reverse() Direction { return 1 - d }
