// Command acp-proxy sits between an editor and an ACP agent, relaying every
// message byte for byte while optional filters fix what agents and clients
// get wrong.
//
//	acp-proxy [flags] -- AGENT [ARGS...]
//	acp-proxy replay [flags] [TRACE|-]
//	acp-proxy view [flags] [-o FILE.html] [TRACE|-]
//	acp-proxy doctor [filter flags] [--timeout D] -- AGENT [ARGS...]
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
