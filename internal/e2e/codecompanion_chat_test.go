package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/procgroup"
)

// neovim is a Neovim 0.11 or later, with the markdown parsers a chat buffer
// needs, and checkouts of codecompanion.nvim and plenary.nvim.
type neovim struct{ nvim, codecompanion, plenary string }

// codecompanionInNeovim finds what a test of codecompanion itself (what)
// runs in: CODECOMPANION_DIR and PLENARY_DIR name the checkouts, NEOVIM the
// nvim binary (else nvim on PATH). Without one of them, or with a Neovim
// older than 0.11 (codecompanion's minimum) or without the markdown
// parsers, the test skips, saying why. Like agent-shell's checkouts, these
// are on no registry CI reaches, and CI cannot build Neovim 0.11 (Debian 12
// has 0.7.2): REQUIRE_EDITORS does not ask for them.
func codecompanionInNeovim(t *testing.T, what string) neovim {
	t.Helper()
	var n neovim
	for _, c := range []struct {
		env, checkout string
		dir           *string
	}{
		{"CODECOMPANION_DIR", "a checkout of olimorris/codecompanion.nvim (v19.22 was run)", &n.codecompanion},
		{"PLENARY_DIR", "a checkout of nvim-lua/plenary.nvim, codecompanion's dependency", &n.plenary},
	} {
		if *c.dir = os.Getenv(c.env); *c.dir == "" {
			t.Skipf("%s (%s) is not set: %s is not run", c.env, c.checkout, what)
		}
	}
	n.nvim = os.Getenv("NEOVIM")
	if n.nvim == "" {
		var err error
		if n.nvim, err = exec.LookPath("nvim"); err != nil {
			t.Skipf("NEOVIM is not set and no nvim is on PATH: %s is not run", what)
		}
	}
	out, err := exec.Command(n.nvim, "--version").Output()
	require.NoError(t, err, "%s --version", n.nvim)
	var major, minor int
	_, err = fmt.Sscanf(string(out), "NVIM v%d.%d", &major, &minor)
	require.NoError(t, err, "%s --version: %q", n.nvim, out)
	if major == 0 && minor < 11 {
		t.Skipf("codecompanion needs Neovim 0.11 or later; %s is %d.%d: %s is not run", n.nvim, major, minor, what)
	}
	check := `lua io.stdout:write(tostring(pcall(vim.treesitter.language.add, "markdown") and ` +
		`vim.treesitter.language.add("markdown") and vim.treesitter.language.add("markdown_inline") or false))`
	out, err = exec.Command(n.nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", check, "-c", "qa!").Output()
	require.NoError(t, err)
	if string(out) != "true" {
		t.Skipf("%s has no markdown and markdown_inline tree-sitter parsers, which codecompanion's chat needs: %s is not run", n.nvim, what)
	}
	return n
}

// codecompanionChat is what a chat in codecompanion showed of one turn.
type codecompanionChat struct {
	log       string // what testdata/codecompanion/chat.lua said, with the buffer
	session   bool   // a session had started when the prompt was sent
	approvals int    // permission prompts answered with Accept
	buffer    string // the chat buffer as drawn, after the turn
}

// runCodecompanionChat runs testdata/codecompanion/chat.lua in n: a chat
// with the setup call setup, in dir with env, that sends prompt.
func runCodecompanionChat(t *testing.T, n neovim, dir string, env []string, setup, prompt string) codecompanionChat {
	t.Helper()
	snippet := filepath.Join(t.TempDir(), "setup.lua")
	require.NoError(t, os.WriteFile(snippet, []byte(setup), 0o644))
	script, err := filepath.Abs(filepath.Join("testdata", "codecompanion", "chat.lua"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.nvim, "--headless", "-n", "-i", "NONE", "-u", script)
	cmd.Dir = dir
	cmd.Env = append(env, "CODECOMPANION_DIR="+n.codecompanion, "PLENARY_DIR="+n.plenary,
		"SNIPPET="+snippet, "PROMPT="+prompt, "WAIT=150")
	var got bytes.Buffer
	cmd.Stdout, cmd.Stderr = &got, &got
	cmd.WaitDelay = 10 * time.Second
	procgroup.Set(cmd)
	require.NoError(t, cmd.Start())
	// Neovim stops the proxy it started, and the proxy the agent.
	checkLeft := procgroup.Watch(t, cmd.Process.Pid)
	err = cmd.Wait()
	checkLeft()
	log := got.String()
	require.NoError(t, err, "%s", log)
	t.Logf("what codecompanion showed:\n%s", log)
	run := codecompanionChat{log: log, approvals: strings.Count(log, "\napproval: ")}
	if m := sessionLine.FindStringSubmatch(log); m != nil {
		run.session = m[1] != "nil"
	}
	_, buffer, ok := strings.Cut(log, "=== buffer\n")
	require.True(t, ok, "no buffer printed:\n%s", log)
	run.buffer, _, _ = strings.Cut(buffer, "\n=== end\n")
	return run
}

var sessionLine = regexp.MustCompile(`(?m)^session=(\S+)$`)

// codecompanionSetupCall is the setup call in doctor's report, unindented,
// as a user pastes it into init.lua.
func codecompanionSetupCall(t *testing.T, report string) string {
	t.Helper()
	_, block, ok := strings.Cut(report, "  require(\"codecompanion\").setup({\n")
	require.True(t, ok, "no codecompanion setup call in:\n%s", report)
	block, _, _ = strings.Cut(block, "\n  })\n")
	return "require(\"codecompanion\").setup({\n" + strings.ReplaceAll(block, "\n  ", "\n")[2:] + "\n})\n"
}

// chatAnswer is the mock model's answer at the end of a turn.
const chatAnswer = "The file is written."

// Each codecompanion config doctor prints, pasted into init.lua, starts a
// session in codecompanion itself (v19.22 in Neovim 0.11) for the user it
// was printed for. For a user with the agent's API key set, the config runs
// a whole turn: the model (the mock) runs a command that writes a file, the
// chat asks permission (with doctor's --shell-to-patch, showing the diff),
// the user presses codecompanion's Accept key, the file is written and the
// answer is shown. A user with no key set gets the agent's API-key method
// and is told which variable to set; what happens before it is set depends
// on codecompanion's preset, whose env hands the agent a variable set to its
// own name when Neovim has no such variable (OPENAI_API_KEY=OPENAI_API_KEY):
// codex-acp 0.16's codex-api-key reads CODEX_API_KEY, and the chat starts no
// session and says the authentication failed; codex-acp 2.6's api-key takes
// the placeholder, and a session starts (its key is then the variable's
// name; the mock model checks none). What doctor named before in that case,
// codex's own ChatGPT sign-in, starts no session with no login stored.
// claude-agent-acp advertises no method: doctor names none, codecompanion
// sends no authenticate, and a session starts.
func TestCodecompanionChatStartsASessionOnDoctorsConfig(t *testing.T) {
	n := codecompanionInNeovim(t, "codecompanion's chat on doctor's configs")
	cases := []struct {
		name, agent, policy string
		argv                []string
		// key is the variable the user sets (none is set before); method
		// the auth_method doctor names with none set ("" for none).
		key, method string
		// placeholder is what codecompanion's preset hands the agent with
		// no key set; noKeySession says a session starts then.
		placeholder  string
		noKeySession bool
		// login is the agent's own sign-in method, which needs a stored
		// login ("" for none).
		login string
	}{
		{"codex-acp 0.16", "codex-0.16", "untrusted", []string{"codex-acp"}, "CODEX_API_KEY", "codex-api-key",
			"OPENAI_API_KEY=OPENAI_API_KEY", false, "chatgpt"},
		{"codex-acp 2.6", "codex-2.6", "workspace-write", []string{"codex-acp"}, "OPENAI_API_KEY", "api-key",
			"OPENAI_API_KEY=OPENAI_API_KEY", true, "chat-gpt"},
		{"claude-agent-acp 0.101", "claude-0.101", "", []string{"claude-agent-acp"}, "ANTHROPIC_API_KEY", "",
			"CLAUDE_CODE_OAUTH_TOKEN=CLAUDE_CODE_OAUTH_TOKEN", true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// start is a new project and agent, with the key set or none,
			// and the setup call doctor prints there.
			start := func(keyed bool) (dir string, env []string, setup string) {
				s := launchScript(t, c.agent, mockmodel.Script{Commands: []string{"echo hello > hello.txt"}, Answer: chatAnswer}, false, c.policy)
				for _, kv := range s.agent.Env {
					if !strings.HasPrefix(kv, c.key+"=") {
						env = append(env, kv)
					}
				}
				if keyed {
					env = append(env, c.key+"=dummy")
				}
				s.agent.Env = env
				out, stderr, err := runDoctor(t, s.agent, c.argv...)
				require.NoError(t, err, "stderr: %s", stderr)
				_, method := codecompanionConfig(t, out)
				require.Equal(t, c.method, method, "the auth_method doctor names")
				if c.method != "" && !keyed {
					words := strings.Join(strings.Fields(out), " ")
					assert.Regexp(t, `With (\S+ or )?`+c.key+`( or \S+)? set where the editor sees it, `+c.method, words)
				}
				return s.agent.Dir, withPath(env, filepath.Join(nodeModules(t, s.agent), ".bin")), codecompanionSetupCall(t, out)
			}
			t.Run("no key set", func(t *testing.T) {
				dir, env, setup := start(false)
				run := runCodecompanionChat(t, n, dir, env, setup, "write hello.txt")
				assert.Contains(t, run.log, "\nenv "+c.placeholder+"\n", "the preset's env, with no such variable in Neovim's")
				if c.noKeySession {
					assert.True(t, run.session)
					assert.Contains(t, run.buffer, chatAnswer)
					return
				}
				assert.False(t, run.session)
				assert.Contains(t, run.log, "[acp::_authenticate] Failed to authenticate with method "+c.method, "what the user is told")
				assert.Zero(t, run.approvals)
				assert.NotContains(t, run.buffer, "## CodeCompanion", "no answer: the chat holds only the user's message")
				assert.NoFileExists(t, filepath.Join(dir, "hello.txt"))
			})
			// What doctor named before, with no key and no login: the
			// agent's own sign-in waits for a login that never comes (the
			// chat's connection, as it opens, waits with no time limit),
			// and the prompt sent after 30 s fails: no session.
			t.Run("no key set, the agent's own sign-in", func(t *testing.T) {
				if c.login == "" {
					t.Skip("the agent advertises no sign-in method")
				}
				dir, env, setup := start(false)
				auth := `auth_method = "` + c.method + `"`
				require.Contains(t, setup, auth)
				setup = strings.Replace(setup, auth, `auth_method = "`+c.login+`"`, 1)
				run := runCodecompanionChat(t, n, dir, env, setup, "write hello.txt")
				assert.False(t, run.session)
				assert.Contains(t, run.log, "[acp::_authenticate] Failed to authenticate with method "+c.login, "what the user is told")
				assert.NotContains(t, run.buffer, "## CodeCompanion", "no answer: the chat holds only the user's message")
			})
			// turn checks a whole turn in the chat.
			turn := func(t *testing.T, dir string, env []string, setup string) {
				run := runCodecompanionChat(t, n, dir, env, setup, "write hello.txt")
				assert.True(t, run.session, "a session before the prompt")
				assert.Equal(t, 1, run.approvals, "one permission prompt, accepted")
				assert.Contains(t, run.buffer, "**Proposed edits for `hello.txt`:**\n\n`````diff\n@@ -0,0 +1 @@\n+hello\n`````",
					"--shell-to-patch's diff, in the chat")
				assert.Contains(t, run.buffer, "You selected: Accept")
				assert.Contains(t, run.buffer, "Edit: hello.txt", "the call's line")
				assert.Contains(t, run.buffer, chatAnswer, "the model's answer")
				got, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
				require.NoError(t, err, "the command ran")
				assert.Equal(t, "hello\n", string(got))
			}
			t.Run("the key set", func(t *testing.T) {
				dir, env, setup := start(true)
				turn(t, dir, env, setup)
			})
			t.Run("no key set, then the variable doctor names", func(t *testing.T) {
				dir, env, setup := start(false)
				turn(t, dir, append(env, c.key+"=dummy"), setup)
			})
		})
	}
}

// codecompanionFilterCommands are what the model runs in the filter tests:
// a command with output, a heredoc write, which --shell-to-patch reads, and
// a program's write and a deletion, which only --show-changes sees.
var codecompanionFilterCommands = []string{
	"echo " + strings.ToLower(commandOutput) + " | tr a-z A-Z",
	"cat > app.py <<'EOF'\nprint('hello')\nEOF",
	`python3 -c "open('data.txt','w').write('from python\n')" && rm old.txt`,
}

// codecompanionFilterChat runs one turn of codex-acp 0.16 (asking before
// each command) in codecompanion, through doctor's config with flags in
// place of doctor's, and returns what the chat showed.
func codecompanionFilterChat(t *testing.T, n neovim, flags ...string) codecompanionChat {
	t.Helper()
	s := launch(t, "codex-0.16", codecompanionFilterCommands, false, "untrusted")
	s.agent.Env = append(s.agent.Env, "CODEX_API_KEY=dummy")
	require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, "old.txt"), []byte("old\n"), 0o644))
	out, stderr, err := runDoctor(t, s.agent, "codex-acp")
	require.NoError(t, err, "stderr: %s", stderr)
	setup := codecompanionSetupCall(t, out)
	const doctors = `"--shell-to-patch", "--terminal-output", "--",`
	require.Contains(t, setup, doctors, "doctor's flags for codex-acp 0.16")
	var quoted []string
	for _, f := range flags {
		quoted = append(quoted, fmt.Sprintf("%q, ", f))
	}
	setup = strings.Replace(setup, doctors, strings.Join(quoted, "")+`"--",`, 1)
	env := withPath(s.agent.Env, filepath.Join(nodeModules(t, s.agent), ".bin"))
	run := runCodecompanionChat(t, n, s.agent.Dir, env, setup, "run the commands")
	require.True(t, run.session, "a session")
	require.Contains(t, run.buffer, mockmodel.DefaultAnswer, "the turn ended with the model's answer")
	return run
}

// commandOutput is what the first of codecompanionFilterCommands prints.
const commandOutput = "OUTPUT-OF-THE-COMMAND"

// The icons codecompanion (display.chat.icons) draws before a tool call's
// line, by the call's status.
const (
	iconRunning = "\uf110  "
	iconDone    = "\uf05d  "
)

// What codecompanion itself shows of codex-acp 0.16's tool calls through
// the proxy, each call one line, "Kind: target", after its status icon, and
// never a call's output, whatever the flags (doctor's --terminal-output
// among them). With no filter, a heredoc write is its command, and its permission
// prompt names the command; as its title has several lines, codecompanion
// cannot rewrite its line (a buffer line holds no newline), and the call
// stays drawn running after it completed. With --shell-to-patch, the line
// names the file, is drawn done, and the prompt shows the diff in the chat.
// With --show-changes, the turn runs and each call is drawn; where the
// changes go is TestCodecompanionChatShowsChangesOnTheCallThatMadeThem's.
func TestCodecompanionChatShowsToolCallsThroughTheFilters(t *testing.T) {
	n := codecompanionInNeovim(t, "codecompanion's chat through the filters")
	const heredocCall = "Execute: cat > app.py <<'EOF'\nprint('hello')\nEOF\n"
	const pythonCall = `Execute: python3 -c "open('data.txt','w').write('from python\n')" ...` + "\n"
	const pythonPrompt = "**Approval Required**\n\n" + `Execute: python3 -c "open('data.txt','w').write('from python\n')" && rm old.txt`
	outputCall := "\n" + iconDone + "Execute: " + codecompanionFilterCommands[0] + "\n"
	// chat is a turn through flags: codex asks before the writes, not
	// before echo; the command's output is never shown.
	chat := func(t *testing.T, flags ...string) codecompanionChat {
		run := codecompanionFilterChat(t, n, flags...)
		assert.Equal(t, 2, run.approvals)
		assert.Contains(t, run.buffer, outputCall)
		assert.NotContains(t, run.buffer, commandOutput, "a call's output")
		assert.Contains(t, run.buffer, pythonPrompt)
		return run
	}
	t.Run("no filter", func(t *testing.T) {
		run := chat(t)
		buffer := run.buffer
		assert.NotContains(t, run.log, "\nedited: ", "no file joins the files the agent edited")
		assert.Contains(t, buffer, "\n"+iconDone+pythonCall)
		assert.Contains(t, buffer, "\n"+iconRunning+heredocCall, "the call's line: its title, newlines and all, never rewritten")
		assert.Contains(t, buffer, "**Approval Required**\n\n"+heredocCall, "the prompt names the command")
		assert.NotContains(t, buffer, "Proposed edits")
	})
	shellToPatch := func(t *testing.T, run codecompanionChat) {
		buffer := run.buffer
		assert.Regexp(t, `\nedited: /\S+/app\.py\n`, run.log, "the file joins the files the agent edited (FileEdited)")
		assert.Contains(t, buffer, "\n"+iconDone+"Edit: app.py\n", "the call's line names the file")
		assert.Contains(t, buffer, "**Proposed edits for `app.py`:**\n\n`````diff\n@@ -0,0 +1 @@\n+print('hello')\n`````",
			"the prompt shows the diff in the chat (up to display.diff.threshold_for_chat, 6 changed lines)")
		assert.NotContains(t, buffer, "cat > app.py")
		assert.Contains(t, buffer, "\n"+iconDone+pythonCall, "a program's write is no shell write: the line is the command's")
	}
	t.Run("--shell-to-patch", func(t *testing.T) { shellToPatch(t, chat(t, "--shell-to-patch")) })
	t.Run("doctor's flags", func(t *testing.T) { shellToPatch(t, chat(t, "--shell-to-patch", "--terminal-output")) })
	t.Run("--show-changes", func(t *testing.T) {
		assert.Contains(t, chat(t, "--show-changes").buffer, "**Approval Required**\n\n"+heredocCall)
	})
}

// codecompanion forgets a call once it has completed (its handler drops
// the call's state), so an update for that call that comes later is drawn
// as a call of its own. An update sent after the call completed was drawn
// so, "Other: app.py", "Other: data.txt", drawn running (the update had no
// kind and no status), and the deletion of old.txt was named nowhere. The
// changes arrive on the call that made them: each call is one line, drawn
// done, that names a file it changed, and no change is drawn as a call of
// its own.
func TestCodecompanionChatShowsChangesOnTheCallThatMadeThem(t *testing.T) {
	n := codecompanionInNeovim(t, "codecompanion's chat with --show-changes")
	run := codecompanionFilterChat(t, n, "--show-changes")
	assert.NotContains(t, run.buffer, "Other: ", "a change drawn as a call of its own")
	assert.NotContains(t, run.buffer, iconRunning, "a call drawn running after the turn")
	assert.Len(t, regexp.MustCompile(`(?m)^\S+  Execute: `).FindAllString(run.buffer, -1), 3, "one line for each of the three calls")
	assert.Contains(t, run.buffer, "\n"+iconDone+"Execute: app.py\n", "the heredoc's line names the file it wrote")
	assert.Regexp(t, "\n"+iconDone+`Execute: (data|old)\.txt\n`, run.buffer, "the python call's line names a file it changed")
}
