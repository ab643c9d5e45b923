package shellwrite

import (
	"errors"
	"strings"
)

// echoOutput returns what `echo args...` prints: the arguments joined by spaces, and a newline.
//
// That holds only without backslashes (dash, zsh, macOS sh and bash with xpg_echo interpret them;
// bash does not) and without a leading '-' (bash and zsh take -n, -e, -E as options, dash prints
// them).
func echoOutput(args []string) ([]byte, error) {
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		return nil, errors.New("echo: first argument starts with '-' (an option in bash, text in dash)")
	}
	for _, a := range args {
		if strings.Contains(a, `\`) {
			return nil, errors.New("echo: backslash in an argument (bash prints it, dash interprets it)")
		}
	}
	return []byte(strings.Join(args, " ") + "\n"), nil
}
