package acpclient

// PlainCapabilities is the clientCapabilities of a client without the
// terminal-output extension (codecompanion, acpx, Toad).
const PlainCapabilities = `{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}`

// ZedLikeCapabilities adds the _meta Zed advertises (docs/agents.md, "The
// terminal-output extension"), which
// turns on the terminal-output extension in the agents. fs and terminal stay
// false, unlike Zed, because this client answers fs/* and terminal/* with
// -32601.
const ZedLikeCapabilities = `{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"_meta":{"terminal_output":true,"terminal-auth":true}}`
