// Command rye-confine is rye's confinement helper. rye execute starts it to
// run a tool that declares a sandbox block: it reads the policy rye hands
// it on a file descriptor, confines its own thread (no_new_privs, Landlock,
// a seccomp filter, no capabilities) and executes the tool, which starts
// confined. It does nothing on its own.
//
// Install it beside rye (go install ./cmd/... installs both); without it
// rye runs itself as the helper, which costs rye's whole start-up on every
// confined run. See docs/execute.md.
package main

import "github.com/ryekit/rye/confine"

func main() { confine.HelperMain() }
