// Package mockmodel serves scripted model APIs on 127.0.0.1 so that real ACP
// agents (codex-acp, claude-agent-acp) can run offline in tests.
//
// [Responses] speaks the OpenAI Responses API that codex uses; [Messages]
// speaks the Anthropic Messages API that the Claude Code CLI uses. Both follow
// a [Script]: in each prompt turn the model first asks the agent to run the
// script's shell commands, one tool call per request, then answers with text.
// Both record every request they get, for failure messages.
package mockmodel
