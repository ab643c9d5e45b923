package mockmodel

import (
	"bytes"
	"strings"
	"time"
)

// DefaultCodexAnswerDelay is how long [Responses] waits before the final
// answer of a turn. codex's unified exec reports a command's end
// asynchronously: if the turn ends first, the agent never sends the final
// tool_call_update (docs/agents.md, "Limits: 10,000 updates, lost output,
// a lost end").
const DefaultCodexAnswerDelay = time.Second

// DefaultAnswer is the final text of a turn when [Script.Answer] is empty.
const DefaultAnswer = "done"

// AuxText is the reply to requests that are not agent turns.
const AuxText = "Mock reply"

// Script is what the mock model does in every prompt turn.
type Script struct {
	// Commands are shell scripts. The model asks for them one tool call
	// per request, in order, then answers. Empty means answer at once.
	Commands []string
	// PromptCommands, for the Messages API, are the commands of a prompt
	// turn whose prompt contains the key, in place of Commands: a test can
	// run other commands in each turn of one session. Keys must not be
	// contained in one another.
	PromptCommands map[string][]string
	// Workdirs are the directories the model names for the commands, in
	// order, where the agent's shell tool takes one (opencode's bash
	// workdir; only [Chat] sends them). "" or a missing entry names none.
	Workdirs []string
	// Calls are calls of the agent's other tools (its own edit tool, say), which the model makes
	// after the commands, one per request, in order. Only [Chat] and [Gemini] make them.
	Calls []Call
	// Answer is the final text; empty means DefaultAnswer.
	Answer string
	// Escalate makes [Responses] ask, with each exec_command, to run the
	// command outside the sandbox (sandbox_permissions "require_escalated"
	// and a justification): codex-acp 2.x in its workspace-write mode then
	// asks the client's permission, as 0.x does under approval_policy
	// "untrusted".
	Escalate bool
	// ExecYield, when positive, is the yield_time_ms [Responses] gives
	// exec_command: a command still running then goes on as a process the
	// model polls with write_stdin (PollTool) until it exits. Zero leaves
	// codex's default.
	ExecYield time.Duration
	// AnswerDelay is the wait before the final answer. Zero means the
	// server's default: DefaultCodexAnswerDelay for Responses, none for
	// Messages. Negative means no wait.
	AnswerDelay time.Duration
}

// Call is a tool call by the tool's name, with its arguments as the model sends them.
type Call struct {
	Tool string
	Args map[string]any
}

// steps is how many tool calls the model makes in a turn.
func (s Script) steps() int { return len(s.Commands) + len(s.Calls) }

// stepCall is the tool call of step i of a turn (i < steps()): command i,
// as a call of shellTool, else one of the Calls.
func (s Script) stepCall(i int, shellTool string) Call {
	if i < len(s.Commands) {
		return Call{Tool: shellTool, Args: commandInput(s.Commands[i])}
	}
	return s.Calls[i-len(s.Commands)]
}

// commandInput is the input of a shell tool call that runs command, the way
// the shell tools of Claude Code, gemini-cli and opencode take it.
func commandInput(command string) map[string]any {
	return map[string]any{"command": command, "description": "Run the mock model's command"}
}

// commandsFor are the commands of a turn whose prompt (as the API carries
// it, JSON) is prompt.
func (s Script) commandsFor(prompt []byte) []string {
	for key, cmds := range s.PromptCommands {
		if bytes.Contains(prompt, []byte(key)) {
			return cmds
		}
	}
	return s.Commands
}

func (s Script) answer() string {
	if s.Answer == "" {
		return DefaultAnswer
	}
	return s.Answer
}

// workdir is the directory the model names for step i, or "".
func (s Script) workdir(i int) string {
	if i < len(s.Commands) && i < len(s.Workdirs) {
		return s.Workdirs[i]
	}
	return ""
}

func (s Script) answerDelay(serverDefault time.Duration) time.Duration {
	switch {
	case s.AnswerDelay < 0:
		return 0
	case s.AnswerDelay == 0:
		return serverDefault
	}
	return s.AnswerDelay
}

// HeredocWrite returns a script that writes content to path with a quoted
// heredoc, the way models usually write files from a shell tool.
// content must not contain a line "EOF".
func HeredocWrite(path, content string) string {
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	return "cat > " + path + " <<'EOF'\n" + content + "EOF"
}
