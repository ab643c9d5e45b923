// Package mockmodel serves scripted model APIs on 127.0.0.1 so that real ACP
// agents (codex-acp, claude-agent-acp, gemini-cli, opencode) can run offline
// in tests.
//
// [Responses] speaks the OpenAI Responses API that codex uses; [Messages]
// the Anthropic Messages API that the Claude Code CLI uses; [Gemini] the
// Gemini API (streamGenerateContent) that gemini-cli uses; [Chat] the OpenAI
// Chat Completions API that opencode's OpenAI-compatible providers use, and
// grok-build against a custom models endpoint. All
// follow a [Script]: in each prompt turn the model first asks the agent to
// run the script's shell commands, one tool call per request, then answers
// with text; requests that are not turns (titles, classifiers, suggestions)
// get a short text. All record every request they get, for failure messages.
package mockmodel
