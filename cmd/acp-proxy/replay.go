package main

import (
	"fmt"
	"io"
)

func runReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "acp-proxy replay: not built yet")
	return 1
}
