package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/internal/doctor"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/proxy"
)

const doctorSynopsis = "acp-proxy doctor [filter flags] [--timeout D] -- AGENT [ARGS...]"

const doctorUsage = `acp-proxy doctor starts AGENT as an editor would, in a temporary directory, asks it
to initialize and for a session there (no prompt: nothing written in your project), and
says what it is, whether it starts a session as things are (and how to sign it in when it
needs that first), what it advertises, which filters help it for a client that renders
terminal output (Zed) and for one that does not (agent-shell, codecompanion, acpx), and
each editor's config, with what that editor shows; codecompanion's names the sign-in
method (auth_method) that fits the agent and the API keys set in this environment.
Filter flags given are marked in the report.

Usage:
  ` + doctorSynopsis + `

Examples:
  acp-proxy doctor -- codex-acp
  acp-proxy doctor --terminal-output -- npx @agentclientprotocol/claude-agent-acp
  acp-proxy doctor -- gemini --acp

Exit status: 0 when the agent answered; the agent's start failure (127 not found, 126 not
executable); 1 when it exited or did not answer in time, or, without starting it, when
its command lacks the argument that makes it an ACP agent (opencode without acp, qwen
without --acp); 2 for a usage error.

Flags:
`

func runDoctor(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("acp-proxy doctor", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(false)
	var cfg filterset.Config
	addFilterFlags(fs, &cfg)
	var timeout time.Duration
	durationVar(fs, &timeout, "timeout", doctor.DefaultTimeout, 0, "how long the agent gets to answer initialize, and then session/new")
	if code := parseTraceFlags(fs, args, doctorUsage, doctorSynopsis, stdout, stderr); code >= 0 {
		return code
	}
	agent, err := expandAgentHome(fs.Args())
	if err != nil {
		return doctorUsageError(stderr, fmt.Errorf("the agent command: %w", err))
	}
	switch {
	case timeout == 0:
		return doctorUsageError(stderr, errors.New("--timeout must be more than 0"))
	case fs.ArgsLenAtDash() < 0:
		return doctorUsageError(stderr, errors.New("missing -- before the agent command"))
	case fs.ArgsLenAtDash() != 0 || len(agent) == 0:
		return doctorUsageError(stderr, errors.New("missing agent command after --"))
	}
	if fix := doctor.CommandMistake(agent); fix != "" {
		// It would wait as an interactive CLI until the timeout: said now.
		fmt.Fprintf(stderr, "acp-proxy doctor: %s\n", fix)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	answer, err := doctor.Probe(ctx, agent, nil, timeout)
	if err != nil {
		var se *proxy.StartError
		if errors.As(err, &se) {
			fmt.Fprintf(stderr, "acp-proxy doctor: %v%s\n", err, installHint(se, agent))
			return se.Code
		}
		fmt.Fprintf(stderr, "acp-proxy doctor: %v\n", err)
		var script *doctor.Script
		if path, rerr := (proxy.Agent{Argv: agent}).Resolve(); rerr == nil {
			script = doctor.FindScript(path)
		}
		doctor.WriteFailure(stderr, agent, err, script)
		return 1
	}
	report := doctor.NewReport(answer, agent, selfPath(), cfg.Flags())
	report.Script = doctor.FindScript(answer.Path)
	report.ProxyTemporary = temporaryBuild(report.Proxy)
	if err := report.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "acp-proxy doctor: %v\n", err)
		return 1
	}
	return 0
}

func doctorUsageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "acp-proxy doctor: %v (usage: %s)\n", err, doctorSynopsis)
	return exitUsage
}

// selfPath is this binary's absolute path as the user named it (a
// symlink in ~/.local/bin stays one), for the editor configs.
func selfPath() string {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "acp-proxy"
}

// temporaryBuild says, when path is a binary go run built, that editor
// configs must not name it and how to install one that stays; "" otherwise.
// go run builds in a go-build directory under the temporary directory,
// deleted when go run ends; since Go 1.24 it also keeps the binary in the
// build cache (GOCACHE/XX/HASH-d/NAME), where the next change to the source
// builds another and the cache's trimming, or go clean -cache, removes it.
func temporaryBuild(path string) string {
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	for i, p := range parts {
		if strings.HasPrefix(p, "go-build") && i+2 < len(parts) && slices.Contains(parts[i+1:], "exe") {
			return "this acp-proxy is go run's temporary build (" + path + "), which go deletes when it exits: " +
				"the configs name a file that will be gone. " + installOneThatStays
		}
	}
	if n := len(parts); n >= 3 && cachedRunBinary(parts[n-3], parts[n-2]) {
		return "this acp-proxy is go run's build in Go's build cache (" + path + "): the next change to the source " +
			"builds another, and go clean -cache or the cache's trimming removes this one, so the configs would name " +
			"a file that goes stale or goes away. " + installOneThatStays
	}
	return ""
}

const installOneThatStays = "Install one that stays, from the clone: " +
	"GOBIN=~/.local/bin go install ./cmd/acp-proxy, then run ~/.local/bin/acp-proxy doctor again."

// cachedRunBinary reports whether prefix/dir are the build cache's
// directories of an executable go run keeps: "16" and
// "164d52…6216-d", the action's hash (64 hex digits) under its first two.
func cachedRunBinary(prefix, dir string) bool {
	hash, ok := strings.CutSuffix(dir, "-d")
	if !ok || len(hash) != 64 || !strings.HasPrefix(hash, prefix) || len(prefix) != 2 {
		return false
	}
	return strings.Trim(hash, "0123456789abcdef") == ""
}
