module github.com/acp-proxy/acp-proxy

go 1.26.8

require (
	github.com/coder/acp-go-sdk v0.13.0 // indirect
	github.com/sourcegraph/jsonrpc2 v0.2.3 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
