// Package policy is --policy FILE: rules that allow, deny or ask each tool call by what it
// really does, for every ACP agent, failing closed.
//
// A policy file holds Claude Code's permission rules (Bash(npm run test:*), Edit(src/**),
// Read(./.env)), one per line after its action: allow, ask, deny or stop. Stop, deny and ask
// rules win over allow rules, in that order, whatever order the file lists them in; a call no
// rule decides goes to the user as it would without a policy. docs/policy.md is the reference.
//
// Fail closed: a deny, ask or stop rule matches whatever the call may do (a command anywhere in
// a script, /usr/bin/git as git, a command a runner such as xargs or find -exec starts); an
// allow rule applies only when the proxy proves the whole effect of the call lies within the
// rules: every command of the script read exactly (internal/shellwrite's Commands), each named
// by an allow rule, none running code its words do not show, run and writing inside the
// session's directory (after symlinks) or where an Edit rule allows. Anything else asks.
//
// The Filter decides where a decision binds: it answers a session/request_permission for the
// user (the agent's allow-once or reject-once option), answers an fs/* or terminal/create
// request with an error before the client acts, and tells the user of a call the agent ran
// without asking that a rule would have denied it (a stop rule also cancels the turn).
package policy
