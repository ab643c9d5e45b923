// Package shellcorpus measures --shell-to-patch on shell commands real models
// ran in public agent trajectories (testdata/shellcorpus).
//
// A corpus entry is one command that writes a file through the shell: an
// output redirect to a file, or a file-writing utility named in the command
// (sed -i, tee, touch, cp, mv, …), or an interpreter one-liner that opens a
// file for writing. [Classify] sorts each command into one [Form] by shell
// rules on its syntax tree. The benchmark (corpus_test.go) asks one
// [Recogniser] what it would show, and runs only the commands it shows in real
// bash, in a throwaway directory without network, to check that the files
// written are the files shown.
package shellcorpus
