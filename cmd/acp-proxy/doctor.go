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

const doctorUsage = `acp-proxy doctor starts AGENT as an editor would, asks it to initialize (nothing
else: no session, nothing written in your project; it runs in a temporary directory), and
says what it is, what it advertises, which filters help it for a client that renders
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
executable); 1 when it exited or did not answer in time; 2 for a usage error.

Flags:
`

func runDoctor(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("acp-proxy doctor", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(false)
	var cfg filterset.Config
	addFilterFlags(fs, &cfg)
	var timeout time.Duration
	durationVar(fs, &timeout, "timeout", doctor.DefaultTimeout, 0, "how long the agent gets to answer initialize")
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
		var node *doctor.NodeScript
		if path, rerr := (proxy.Agent{Argv: agent}).Resolve(); rerr == nil {
			node = doctor.FindNodeScript(path)
		}
		doctor.WriteFailure(stderr, agent, err, node)
		return 1
	}
	report := doctor.NewReport(answer, agent, selfPath(), cfg.Flags())
	report.Node = doctor.FindNodeScript(answer.Path)
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

// temporaryBuild says, when path is a binary go run built (in a go-build
// directory under the temporary directory, deleted when go run ends), that
// editor configs must not name it and how to install one that stays; ""
// otherwise.
func temporaryBuild(path string) string {
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	for i, p := range parts {
		if strings.HasPrefix(p, "go-build") && i+2 < len(parts) && slices.Contains(parts[i+1:], "exe") {
			return "this acp-proxy is go run's temporary build (" + path + "), which go deletes when it exits: " +
				"the configs name a file that will be gone. Install one that stays, from the clone: " +
				"GOBIN=~/.local/bin go install ./cmd/acp-proxy, then run ~/.local/bin/acp-proxy doctor again."
		}
	}
	return ""
}
