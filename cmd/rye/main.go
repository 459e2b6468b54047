// Command rye checks, signs, verifies and runs RYE items. See the README.
package main

import (
	"os"

	"github.com/ryekit/rye/cmd/rye/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
