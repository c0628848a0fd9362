// Command pleat animates fitted garments on motion-captured characters with
// fine wrinkles. It is a thin command-line layer over the pleat packages; run
// `pleat help` for the subcommands.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "pleat:", err)
		os.Exit(1)
	}
}
