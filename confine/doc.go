// Package confine is rye's confinement engine: it runs a program with only
// what a tool's sandbox block declares, or not at all.
//
// On Linux it uses Landlock (filesystem access by path, TCP bind and
// connect by port) and a seccomp filter (socket families and types,
// subprocesses, and the system calls that would step around both:
// io_uring, ptrace, bpf, user namespaces, ...). Neither needs root or user
// namespaces, so confinement works where bubblewrap-style sandboxes do not
// (stock Ubuntu 24.04, unprivileged containers).
//
// Both are applied by the process that is about to become the tool, just
// before it executes it: Go cannot run code between fork and exec, so rye
// starts a small helper program (cmd/rye-confine, or rye itself in a
// hidden mode when the helper is not installed beside it). rye builds the
// Landlock ruleset (Ruleset: creating one and adding rules restricts
// nobody) and hands it to the helper on a descriptor, with a Policy in a
// sealed memory file on another (never in the helper's environment or
// arguments, which the tool's configuration could reach). The helper adds
// its own /proc/self, sets no_new_privs, restricts its own thread with the
// ruleset, drops capabilities, installs the seccomp filter and calls
// execve: the tool starts confined, and so does everything it starts. Any
// failure before execve is reported to rye on a status pipe and nothing
// runs.
//
// Declared paths are opened by rye (Launcher), below their placeholder's
// folder without following symbolic links, so that a link a change under
// review adds to the project cannot widen what the tool may read. The
// system defaults (DefaultNames) are opened following links: they are
// the system's.
//
// Nothing runs with less than declared: Check refuses, with an
// *UnenforceableError naming what was needed and what was found, a kernel
// without Landlock, a Landlock ABI too old for the declaration (3 for any
// block: before it truncate(2) was not controlled; 4 for TCP ports), a
// declaration that names hosts (enforcing those needs a network namespace
// and a proxy, which rye does not have), and any system other than Linux
// on amd64 or arm64.
//
// The package imports the standard library and golang.org/x/sys only, and
// does no work at package initialisation: the helper links it, and its
// start-up is part of every confined run.
package confine
