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

// A classifieds site refuses an ad that repeats one it holds: the check
// and the add are one step, also for concurrent calls.
func ExampleIndex_AddIfUnique() {
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

	for i, text := range []string{
		"Bright two-room flat near the station, newly renovated, 900 a month.",
		"Bright two room flat near the station, newly renovated: 900 a month!",
		"Garden shed, two years old, must be collected, 120.",
	} {
		id := fmt.Sprint("ad", i)
		dups, err := x.AddIfUnique(nil, index.Doc{ID: id, Text: []byte(text)})
		if err != nil {
			log.Fatal(err)
		}
		for _, d := range dups {
			fmt.Printf("%s refused: repeats %s\n", d.ID, d.Matches[0].ID)
		}
	}
	fmt.Println(x.Len(), "ads")
	// Output:
	// ad1 refused: repeats ad0
	// 2 ads
}
