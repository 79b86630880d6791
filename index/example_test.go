package index_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/simidx/simidx/index"
)

func Example() {
	dir, err := os.MkdirTemp("", "simidx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Create an index for fingerprints up to 3 bits apart.
	x, err := index.Open(filepath.Join(dir, "corpus.simidx"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()

	err = x.Add(
		index.Doc{ID: "a", Text: []byte("The quick brown fox jumps over the lazy dog.")},
		index.Doc{ID: "b", Text: []byte("the quick brown fox jumps over the lazy dog")},
		index.Doc{ID: "c", Text: []byte("An entirely different sentence about something else.")},
	)
	if err != nil {
		log.Fatal(err)
	}

	// Documents near "a", without "a" itself.
	matches, err := x.QueryID("a", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range matches {
		fmt.Println("near a:", m.ID)
	}

	// Every group of near-duplicates.
	err = x.Clusters(context.Background(), nil, func(c index.Cluster) error {
		fmt.Println("cluster", c.Number, c.IDs)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(x.Len(), "documents")
	// Output:
	// near a: b
	// cluster 0 [a b]
	// 3 documents
}

func ExampleIndex_QueryFingerprint() {
	dir, _ := os.MkdirTemp("", "simidx-example")
	defer os.RemoveAll(dir)
	x, err := index.Open(filepath.Join(dir, "fps.simidx"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()

	x.AddFingerprint("x", 0xFFFF_0000_FFFF_0000)
	x.AddFingerprint("y", 0xFFFF_0000_FFFF_0007) // 3 bits away
	x.AddFingerprint("z", 0x0000_FFFF_0000_FFFF)

	ms, _ := x.QueryFingerprint(0xFFFF_0000_FFFF_0001, nil)
	fmt.Println(ms)
	// Identical fingerprints only.
	ms, _ = x.QueryFingerprint(0xFFFF_0000_FFFF_0000, &index.QueryOptions{MaxDistance: index.ZeroDistance})
	fmt.Println(ms)
	// Output:
	// [{x 1 0 false} {y 2 0 false}]
	// [{x 0 0 false}]
}

// A server analyzes each posted text once, when it arrives, to check it
// against the index, and stores the analyses later in one commit.
func ExampleIndex_AddProbed() {
	dir, err := os.MkdirTemp("", "simidx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	x, err := index.Open(filepath.Join(dir, "ads.simidx"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()

	var pending []index.ProbedDoc
	for i, text := range []string{
		"Bright two-room flat near the station, newly renovated, 900 a month.",
		"Bright two room flat near the station, newly renovated: 900 a month!",
	} {
		p, err := x.Probe([]byte(text))
		if err != nil {
			log.Fatal(err)
		}
		ms, err := x.QueryProbe(&p, nil) // the stored ads it repeats
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("ad%d: %d stored near duplicates\n", i, len(ms))
		pending = append(pending, index.ProbedDoc{ID: fmt.Sprint("ad", i), Probe: p})
	}
	if err := x.AddProbed(pending...); err != nil {
		log.Fatal(err)
	}
	ms, err := x.QueryID("ad0", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		fmt.Println("near ad0:", m.ID)
	}
	// Output:
	// ad0: 0 stored near duplicates
	// ad1: 0 stored near duplicates
	// near ad0: ad1
}
