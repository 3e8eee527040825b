package main

import (
	"os"

	"github.com/apigen-dev/apigen/cmd/apigen/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
