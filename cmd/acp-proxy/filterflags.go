package main

import (
	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/filters"
)

// addFilterFlags registers the flags that enable and tune filters; the live
// proxy and replay share them, so a replay shows what the live proxy does.
func addFilterFlags(fs *pflag.FlagSet, cfg *filters.Config) {
}
