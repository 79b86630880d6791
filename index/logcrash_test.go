package index_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// logCrashChild, set in the environment of a child process of
// TestAddCrash, names the index the child writes to until it is killed.
const logCrashChild = "SIMIDX_LOG_CRASH_CHILD"

func init() {
	if path := os.Getenv(logCrashChild); path != "" {
		os.Exit(runLogCrashChild(path))
	}
}

// crashText returns a text of 30 to 60 words, different for each seed.
func crashText(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	words := []string{"river", "stone", "market", "window", "letter", "garden", "silver", "engine", "harbor",
		"winter", "candle", "forest", "mirror", "ticket", "pocket", "ladder", "violet", "copper", "meadow", "tunnel"}
	var b strings.Builder
	for i := range 30 + r.IntN(30) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
		fmt.Fprint(&b, r.IntN(1000))
	}
	return []byte(b.String())
}

// runLogCrashChild adds documents to the index at path from 8 goroutines,
// deleting every fourth document its goroutine added two calls before,
// and writes "add ID" or "del ID" on stdout once each call has returned
// (and "del? ID" before a Delete),
// until it is killed.
func runLogCrashChild(path string) int {
	x, err := index.Open(path, &index.Options{Settings: &index.Settings{MinHash: true}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var mu sync.Mutex
	say := func(format string, a ...any) {
		mu.Lock()
		fmt.Fprintf(os.Stdout, format, a...)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				if err := x.Add(index.Doc{ID: id, Text: crashText(uint64(g)<<32 | uint64(i))}); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
				say("add %s\n", id)
				if i%4 == 3 {
					del := fmt.Sprintf("g%d-%d", g, i-2)
					say("del? %s\n", del)
					if _, err := x.Delete(del); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(3)
					}
					say("del %s\n", del)
				}
			}
		})
	}
	wg.Wait()
	return 0
}

// TestAddCrash kills a process whose goroutines call Add and Delete, and
// checks that the index, reopened, holds every document whose Add had
// returned, less those whose Delete had returned: read-only (from the
// log, in memory) and then for writing (the log applied to the file).
func TestAddCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("a child process writes for a few seconds")
	}
	path := filepath.Join(t.TempDir(), "crash.simidx")
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), logCrashChild+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := map[string]bool{}    // ID: present
		inFlight := map[string]bool{} // deletes called, not known to have returned
		sc := bufio.NewScanner(out)
		kill := 2000 + 1500*round // acknowledged calls before the kill
		n := 0
		for sc.Scan() {
			op, id, _ := strings.Cut(sc.Text(), " ")
			if op == "del?" {
				inFlight[id] = true
				continue
			}
			delete(inFlight, id)
			acked[id] = op == "add"
			if n++; n == kill {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
		}
		werr := cmd.Wait()
		if n < kill {
			t.Fatalf("round %d: the child stopped after %d calls: %v\n%s", round, n, werr, stderr.String())
		}
		check := func(x *index.Index, how string) {
			t.Helper()
			for id, present := range acked {
				if inFlight[id] {
					continue // either way
				}
				_, err := x.Get(id)
				if present && err != nil {
					t.Fatalf("round %d, %s: acknowledged add of %s lost: %v", round, how, id, err)
				}
				if !present && err == nil {
					t.Fatalf("round %d, %s: acknowledged delete of %s lost", round, how, id)
				}
			}
		}
		ro, err := index.Open(path, &index.Options{ReadOnly: true, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatalf("round %d: read-only open after the kill: %v", round, err)
		}
		check(ro, "read-only")
		roLen, replayed := ro.Len(), ro.Replayed()
		ro.Close()
		x, err := index.Open(path, nil)
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		check(x, "writable")
		if x.Len() != roLen || x.Replayed() != replayed {
			t.Errorf("round %d: read-only open saw %d documents (%d logged), writable %d (%d)", round, roLen, replayed, x.Len(), x.Replayed())
		}
		if err := x.Check(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		t.Logf("round %d: %d calls acknowledged, %d logged operations replayed, %d documents", round, n, replayed, x.Len())
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(index.LogDir(path)); !os.IsNotExist(err) {
			t.Fatalf("round %d: the log is left after Close: %v", round, err)
		}
	}
}
