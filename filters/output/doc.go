// Package output holds the filters that fix how command output reaches the
// client: terminal-output (ask agents to stream, translate the stream for
// clients that do not render the terminal extension, recover what agents
// drop), deltas (accumulated snapshots become deltas) and persisted-output
// (outputs an agent saved to a file and showed only part of: the Claude
// CLI's <persisted-output> previews, opencode's truncated output). They
// share per-call state, the coalescing policy and the content they build.
package output
