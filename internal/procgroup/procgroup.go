// Package procgroup starts test helpers' child processes in a group of their
// own and signals the whole group, so cleanup also ends the children's
// children (an agent's CLI, its shells). On Windows, which has no process
// groups to signal, it signals the process alone: the tests that rely on
// groups run on Unix.
package procgroup
