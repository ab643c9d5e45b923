// Package layering holds only a test: the import rules of
// docs/architecture.md, checked against `go list -deps` for every platform
// the release builds, so a change that makes an arrow point the wrong way
// fails the tests.
package layering
