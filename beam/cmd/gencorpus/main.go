// Command gencorpus writes the generated corpus of simidx-beam's tests and
// figures (package beam/internal/gencorpus) to a file:
//
//	go run ./cmd/gencorpus -n 100000 -seed 7 -o /tmp/gen100k.jsonl
//
// The same -n and -seed give the same bytes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/simidx/simidx/beam/internal/gencorpus"
)

func main() {
	n := flag.Int("n", 100000, "`documents` to write")
	seed := flag.Uint64("seed", 7, "random `seed`")
	out := flag.String("o", "", "`FILE` to write the JSON lines to")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 || *n < 0 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-n N] [-seed S] -o FILE")
		os.Exit(2)
	}
	if err := gencorpus.WriteFile(*out, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}
