package main

import (
	"encoding/json"
	"regexp"
	"strings"
)

// source is one set of public trajectories: a repository at a pinned commit,
// the files under a directory with a suffix, read by one agent's reader.
type source struct {
	id     string
	repo   string
	commit string
	under  string
	suffix string
	read   func(data []byte) ([]shellCall, error)
}

// shellCall is one command an agent sent to its shell, and the directory it
// ran in.
type shellCall struct{ command, cwd string }

// fromJSON is the reader of a JSON format: the file decoded into T, then
// its shell calls.
func fromJSON[T any](calls func(T) ([]shellCall, error)) func(data []byte) ([]shellCall, error) {
	return func(data []byte) ([]shellCall, error) {
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		return calls(v)
	}
}

var sources = []source{
	{
		id:     "mini-swe-agent/gemini-3-pro",
		repo:   "gruckion/mini-swe-agent",
		commit: "d12a71affd95403b036b2bdbd827349b77bfffb9",
		under:  "swebench_results/20251118_gemini-3-pro-74pct/trajs",
		suffix: ".traj.json",
		read:   readMini,
	},
	{
		id:     "openhands/claude-3.5-sonnet",
		repo:   "gsmoon97/swe-agent-eval",
		commit: "2b8d930540ddaf0ae1290e718f1bd0741c70005e",
		under:  "evaluation/python/verified/20250329_OpenHands_Claude-3.5-Sonnet(Oct)/trajs",
		suffix: ".json",
		read:   readOpenHands,
	},
}

func init() {
	for _, model := range []string{"deepseek-chat-v2", "deepseek-coder-v2", "doubao-pro-128k", "gpt-4o-2024-05-13", "gpt-4o-mini-2024-07-18"} {
		sources = append(sources, source{
			id:     "swe-agent/" + model,
			repo:   "multi-swe-bench/experiments",
			commit: "89888f1604001fcd80b0799a37af42a1bfebfd8f",
			under:  "evaluation/java/verified/20240825_SWE-agent_" + model + "/trajs",
			suffix: ".traj",
			read:   readSWEAgent,
		})
	}
}

// miniAction is mini-swe-agent's own rule (agents/default.py, action_regex):
// a reply holds exactly one bash block, whose text, trimmed, runs with
// `bash -lc` in a fresh shell in /testbed.
var miniAction = regexp.MustCompile("(?s)```bash\\s*\n(.*?)\n```")

var readMini = fromJSON(miniCalls)

// miniTrajectory is the part of a mini-swe-agent trajectory the reader needs.
type miniTrajectory struct {
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
}

// miniCalls are the commands of traj's assistant replies, by miniAction.
func miniCalls(traj miniTrajectory) ([]shellCall, error) {
	var calls []shellCall
	for _, m := range traj.Messages {
		text, ok := m.Content.(string)
		if m.Role != "assistant" || !ok {
			continue
		}
		if found := miniAction.FindAllStringSubmatch(text, -1); len(found) == 1 {
			calls = append(calls, shellCall{command: strings.TrimSpace(found[0][1]), cwd: "/testbed"})
		}
	}
	return calls, nil
}

// openHandsCwd is the line OpenHands appends to each execute_bash result.
var openHandsCwd = regexp.MustCompile(`\[Current working directory: ([^\]\n]+)\]`)

type openHandsMessage struct {
	Role      string `json:"role"`
	Content   any    `json:"content"`
	ToolCalls []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// openHandsLog is an OpenHands completion log: the function-calling
// messages of the whole episode, then the last response.
type openHandsLog struct {
	Messages []openHandsMessage `json:"fncall_messages"`
	Response struct {
		Choices []struct {
			Message openHandsMessage `json:"message"`
		} `json:"choices"`
	} `json:"fncall_response"`
}

var readOpenHands = fromJSON(openHandsCalls)

// openHandsCalls are the execute_bash calls of log. The shell persists, so
// each command runs where the previous result said it was.
func openHandsCalls(log openHandsLog) ([]shellCall, error) {
	msgs := log.Messages
	for _, c := range log.Response.Choices {
		msgs = append(msgs, c.Message)
	}
	cwd := "/workspace"
	var calls []shellCall
	for _, m := range msgs {
		if text, ok := m.Content.(string); ok && m.Role == "tool" {
			if found := openHandsCwd.FindAllStringSubmatch(text, -1); len(found) > 0 {
				cwd = found[len(found)-1][1]
			}
		}
		for _, tc := range m.ToolCalls {
			if tc.Function.Name != "execute_bash" {
				continue
			}
			var args struct {
				Command string `json:"command"`
			}
			if err := unquoteJSON(tc.Function.Arguments, &args); err != nil {
				return nil, err
			}
			if args.Command != "" {
				calls = append(calls, shellCall{command: args.Command, cwd: cwd})
			}
		}
	}
	return calls, nil
}

// sweAgentTools are SWE-agent's own commands (its file viewer and editor);
// their text is not shell (edit's body is the file's new lines).
var sweAgentTools = map[string]bool{
	"open": true, "goto": true, "scroll_up": true, "scroll_down": true, "create": true,
	"edit": true, "submit": true, "search_dir": true, "search_file": true, "find_file": true,
}

// sweAgentTrajectory is the part of a SWE-agent trajectory the reader needs.
type sweAgentTrajectory struct {
	Trajectory []struct {
		Action string `json:"action"`
		State  string `json:"state"`
	} `json:"trajectory"`
}

var readSWEAgent = fromJSON(sweAgentCalls)

// sweAgentCalls are the shell actions of traj. Each step's state is recorded
// after its action, so an action runs in the previous step's directory.
func sweAgentCalls(traj sweAgentTrajectory) ([]shellCall, error) {
	var calls []shellCall
	cwd := ""
	for _, step := range traj.Trajectory {
		var state struct {
			WorkingDir string `json:"working_dir"`
		}
		_ = json.Unmarshal([]byte(step.State), &state) // a missing state leaves the directory as it was
		if cwd == "" {
			cwd = state.WorkingDir
		}
		action := strings.TrimSpace(step.Action)
		if words := strings.Fields(action); len(words) > 0 && !sweAgentTools[words[0]] {
			calls = append(calls, shellCall{command: action, cwd: cwd})
		}
		if state.WorkingDir != "" {
			cwd = state.WorkingDir
		}
	}
	return calls, nil
}
