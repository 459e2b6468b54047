//go:build !linux

package confine

import (
	"fmt"
	"os"
)

// HelperMain refuses: confinement is Linux's (Landlock and seccomp).
func HelperMain() {
	fmt.Fprintf(os.Stderr, "%s: confinement needs Linux (Landlock and seccomp); nothing was run\n", HelperName)
	os.Exit(127)
}
