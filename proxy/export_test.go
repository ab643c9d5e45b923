package proxy

// The relay's test filters and helpers, for the tests that run the relay
// with a trace recorder (package proxy_test: package trace imports proxy).
var (
	ViewingFilter = viewingFilter
	Corpus        = corpus
	RelayOnce     = relayOnce
)

type (
	HoldingFilter = holdingFilter
	SyncBuffer    = syncBuffer
)
