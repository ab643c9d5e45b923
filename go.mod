module github.com/acp-proxy/acp-proxy

go 1.26.8

require (
	github.com/coder/acp-go-sdk v0.13.0
	github.com/spf13/pflag v1.0.10
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	mvdan.cc/sh/v3 v3.14.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
