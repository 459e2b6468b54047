// Package secretenv keeps rye's secrets out of reach of the tools it runs.
//
// Removing a variable with os.Unsetenv changes Go's copy of the
// environment, not the block the kernel set up at execve: that block stays
// in the process's memory, and /proc/<pid>/environ shows it to every
// process allowed to read it (any process of the same user while rye is
// dumpable, and root always). A tool is such a process. Scrub overwrites
// the values of the named variables in that block, so that the file shows
// them empty, and makes the process non-dumpable (its /proc files then
// belong to root, and processes of the same user cannot attach to it), as
// defence in depth: non-dumpable alone does not stop root.
//
// Go copied the environment at start-up, so os.Getenv still returns the
// values after Scrub: the caller reads what it needs, and the executor
// leaves the secrets out of every tool's environment.
package secretenv
