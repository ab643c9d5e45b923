// Package realagent finds the real ACP agents installed under
// testdata/agents (by npm) and builds their launch configuration for
// offline runs against internal/mockmodel servers: argv, a private
// environment and a temporary project directory. ACP_PROXY_AGENT_<DIR>
// points a launcher at another install (ModulesEnv).
//
// A missing agent or node skips the test, unless REQUIRE_AGENTS=1, which
// makes it a failure.
package realagent
